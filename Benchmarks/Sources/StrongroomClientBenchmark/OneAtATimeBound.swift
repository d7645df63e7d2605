// Strongroom — SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation
import StrongroomCrypto

/// What a record one at a time cannot avoid, measured in the same run, set against the time a record may take at
/// the target ratio: the server's answer to the lightest client (wrk, one connection), the record's cryptography
/// with warm caches, and what a Swift client on a NIO channel adds to a bare request over wrk (its event loop and
/// task hand-offs). The rest of the budget is all the SDK has for HTTP framing, JSON, the access-key cache and
/// building the record; the line prints it beside what the SDK spends there.
struct OneAtATimeBound {
    /// µs per record of the write's cryptography: five fields encrypted (a data key and two nonces each) and the
    /// record's Ed25519 signature over its canonical text.
    let writeCrypto: Double
    /// µs per record of the read's: five fields decrypted (ten secretbox opens) and the signature verified.
    let readCrypto: Double
    /// µs per round trip between two threads that wake each other in turn: the cost of a hand-off there and back.
    let wakeRoundTrip: Double

    /// Times the cryptography of records of `data` and a thread ping-pong, a few thousand rounds each.
    static func measure(data: [String: String]) throws -> OneAtATimeBound {
        let keys = ClientKeys.generate()
        let accessKey = AccessKey()
        let id = UUID()
        var wire: [String: String] = [:]
        var signature = Data()
        let clock = ContinuousClock()
        func timeRecords(_ rounds: Int) throws -> (write: Double, read: Double) {
            let writing = clock.measure {
                for _ in 0..<rounds {
                    wire = FieldCipher.encrypt(fields: data, with: accessKey)
                    signature = keys.signingKey.signature(
                        for: RecordInfo(writerID: id, userID: id, type: "bench", data: data)
                    )
                }
            }
            let reading = try clock.measure {
                for _ in 0..<rounds {
                    let plain = try FieldCipher.decrypt(fields: wire, with: accessKey)
                    try keys.signingKey.publicKey.verify(
                        signature,
                        for: RecordInfo(writerID: id, userID: id, type: "bench", data: plain)
                    )
                }
            }
            return (writing.seconds * 1e6 / Double(rounds), reading.seconds * 1e6 / Double(rounds))
        }
        _ = try timeRecords(100)  // warm-up
        let records = try timeRecords(2000)
        return OneAtATimeBound(
            writeCrypto: records.write,
            readCrypto: records.read,
            wakeRoundTrip: pingPong(rounds: 20_000)
        )
    }

    /// µs per round trip of two threads passing a turn back and forth through two semaphores (futexes).
    static func pingPong(rounds: Int) -> Double {
        let ping = DispatchSemaphore(value: 0)
        let pong = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let partner = Thread {
            for _ in 0..<rounds {
                ping.wait()
                pong.signal()
            }
            done.signal()
        }
        partner.start()
        let elapsed = ContinuousClock().measure {
            for _ in 0..<rounds {
                ping.signal()
                pong.wait()
            }
        }
        done.wait()
        return elapsed.seconds * 1e6 / Double(rounds)
    }

    /// The best ratio to the Python SDK that any client spending `crypto` µs per record could reach against this
    /// server (no HTTP, JSON or hand-off cost of its own): Python's `python` µs per record over wrk's lone request
    /// (`floor`) plus `crypto`; and the same against a server that answered the request as fast as its own `/health`
    /// (`health` µs: the HTTP stack alone), which would save Python as much as the client.
    static func ceiling(_ label: String, python: Double?, floor: Double?, health: Double?, crypto: Double) -> String {
        guard let python, let floor, let health else { return "  \(label) ceiling: n/a (needs the Python SDK and wrk)" }
        return String(
            format: "  %@ ceiling for a client with only this crypto: Python %.0f µs / (%.0f + %.0f) = %.2fx; against a"
                + " server as fast as its /health (%.0f µs): %.2fx",
            label,
            python,
            floor,
            crypto,
            python / (floor + crypto),
            health,
            (python - floor + health) / (health + crypto)
        )
    }

    /// The bound for one kind of request: `budget` µs per record at the target, `floor` wrk's µs per request,
    /// `channelGap` the µs a bare NIO-channel request takes over wrk's, `sdk` the SDK's µs per record.
    static func describe(
        _ label: String,
        budget: Double?,
        floor: Double?,
        crypto: Double,
        channelGap: Double?,
        sdk: Double
    ) -> String {
        guard let budget, let floor, let channelGap else {
            return "  \(label): n/a (needs the Python SDK's rate and wrk)"
        }
        let unavoidable = floor + crypto + channelGap
        let left = budget - unavoidable
        let spent = sdk - unavoidable
        let verdict =
            left < 0
            ? String(format: "over the target by %.0f µs before any HTTP framing, JSON or record building", -left)
            : String(format: "leaving %.0f µs for HTTP framing, JSON and building the record", left)
        return String(
            format: "  %@: at the target ≤ %.0f µs; wrk's lone request %.0f + crypto %.0f + a NIO channel's gap %.0f"
                + " = %.0f, %@ (the SDK spends %.0f there)",
            label,
            budget,
            floor,
            crypto,
            channelGap,
            unavoidable,
            verdict,
            spent
        )
    }
}
