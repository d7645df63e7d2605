// Strongroom — SPDX-License-Identifier: Apache-2.0
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StrongroomCore
public import StrongroomCrypto

/// A key log witness this server asks to cosign its checkpoints (`serve --keylog-witness KEY@URL`).
public struct KeyLogWitnessEndpoint: Sendable, Hashable {
    /// The witness's cosigner key (`strongroom-server witness key` prints it).
    public var key: CosignerKey
    /// The witness's submission prefix (`http://host:port`; `/add-checkpoint` is appended).
    public var url: String

    /// A witness at `url` with `key`.
    public init(key: CosignerKey, url: String) {
        self.key = key
        self.url = url
    }

    /// Parses `KEY@URL`.
    ///
    /// - Throws: ``ServerError`` (configuration) when it does not parse.
    public init(_ text: String) throws {
        guard let at = text.firstIndex(of: "@") else {
            throw ServerError(.configuration, "--keylog-witness is KEY@URL (the witness's key, then its URL)")
        }
        let url = String(text[text.index(after: at)...])
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            throw ServerError(.configuration, "--keylog-witness's URL is http(s)")
        }
        do {
            key = try CosignerKey(String(text[..<at]))
        } catch {
            throw ServerError(.configuration, "--keylog-witness's key is not a witness key (name+keyid+base64)")
        }
        self.url = url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}

/// Asks witnesses to cosign a checkpoint (C2SP `tlog-witness` `add-checkpoint`), each with a consistency proof from
/// the size it last cosigned; keeps the cosignatures that verify.
enum WitnessPusher {
    /// One client for every push: a witness that does not answer within 5 s is skipped for that checkpoint.
    static let http = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(5)))
    )

    /// `note` with the cosignatures of `witnesses` that verify; the size each witness now holds.
    static func cosign(
        _ note: SignedNote,
        size: UInt64,
        view: MerkleTree,
        witnesses: [KeyLogWitnessEndpoint],
        known: [String: UInt64],
        logger: Logger
    ) async -> (note: SignedNote, sizes: [String: UInt64]) {
        var signatures = note.signatures
        var sizes = known
        await withTaskGroup(of: (String, SignedNote.Signature?, UInt64?).self) { group in
            for witness in witnesses {
                let old = known[witness.key.description] ?? 0
                group.addTask {
                    await push(note, size: size, view: view, to: witness, old: old, logger: logger)
                }
            }
            for await (name, signature, held) in group {
                if let signature { signatures.append(signature) }
                if let held { sizes[name] = held }
            }
        }
        return ((try? SignedNote(text: note.text, signatures: signatures)) ?? note, sizes)
    }

    /// One witness's cosignature, retried once from the size it reports holding (409).
    private static func push(
        _ note: SignedNote,
        size: UInt64,
        view: MerkleTree,
        to witness: KeyLogWitnessEndpoint,
        old: UInt64,
        logger: Logger
    ) async -> (String, SignedNote.Signature?, UInt64?) {
        var old = old
        for _ in 0..<2 {
            guard old <= size, let proof = view.consistencyProof(oldSize: old, newSize: size) else { break }
            var body = "old \(old)\n"
            for hash in old == 0 ? [] : proof { body += Data(hash.bytes).base64EncodedString() + "\n" }
            body += "\n" + note.encoded
            var request = HTTPClientRequest(url: witness.url + "/add-checkpoint")
            request.method = .POST
            request.headers.add(name: "content-type", value: "text/plain")
            request.body = .bytes(ByteBuffer(string: body))
            do {
                let response = try await http.execute(request, timeout: .seconds(5))
                let answer = String(buffer: try await response.body.collect(upTo: 64 << 10))
                switch response.status.code {
                case 200:
                    let cosigned = try SignedNote(parsing: note.text + "\n" + answer)
                    guard try witness.key.cosignatureTime(on: cosigned) != nil,
                        let signature = cosigned.signatures.first(where: {
                            $0.name == witness.key.name && $0.keyID == witness.key.keyID
                        })
                    else { return (witness.key.description, nil, size) }
                    return (witness.key.description, signature, size)
                case 409:
                    guard let held = UInt64(answer.trimmingCharacters(in: .whitespacesAndNewlines)), held != old else {
                        break
                    }
                    old = held
                    continue
                default:
                    break
                }
                logger.warning(
                    "a key log witness refused a checkpoint",
                    metadata: [
                        "witness": .string(witness.key.name), "status": .stringConvertible(response.status.code),
                    ]
                )
                return (witness.key.description, nil, nil)
            } catch {
                logger.warning(
                    "a key log witness could not be reached",
                    metadata: ["witness": .string(witness.key.name)]
                )
                return (witness.key.description, nil, nil)
            }
        }
        return (witness.key.description, nil, nil)
    }
}
