// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// What the server answers one connection with the lightest client there is: wrk (C, no TLS, no cryptography), one
/// request at a time for three seconds. No client, however fast, writes or reads one record at a time faster.
enum OneConnectionFloor {
    /// GETs of `url` per second; nil when wrk is missing or failed.
    static func rate(_ url: String, authorization: String?) -> Double? {
        run((authorization.map { ["-H", "Authorization: \($0)"] } ?? []) + [url])
    }

    /// POSTs of `body` (JSON) to `url` per second, through a wrk script written in `work`.
    static func rate(_ url: String, posting body: String, authorization: String, in work: URL) throws -> Double? {
        let script = work.appending(path: "post-floor.lua")
        defer { try? FileManager.default.removeItem(at: script) }
        // A JSON string literal reads as the same Lua (5.1, wrk's) literal when it holds no "\/" or "\u" escape;
        // the body is printable ASCII and slashes stay unescaped.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        let quoted = String(decoding: try encoder.encode(body), as: UTF8.self)
        try """
        wrk.method = "POST"
        wrk.body = \(quoted)
        wrk.headers["Authorization"] = "\(authorization)"
        wrk.headers["Content-Type"] = "application/json"
        """.write(to: script, atomically: true, encoding: .utf8)
        return run(["-s", script.path, url])
    }

    /// A record write of five 1 KiB fields shaped like EDK.EDKN.EF.EFN ciphertext (the server never looks inside).
    static func recordBody(writer: UUID) -> String {
        let part = { (count: Int) in
            Data((0..<count).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let fields = (0..<5).map { "\"f\($0)\":\"\(part(48)).\(part(24)).\(part(1040)).\(part(24))\"" }
        let id = writer.uuidString.lowercased()
        return #"{"meta":{"writer_id":"\#(id)","user_id":"\#(id)","type":"bench-floor","plain":{}},"data":{"#
            + fields.joined(separator: ",") + "}}"
    }

    private static func run(_ arguments: [String]) -> Double? {
        let wrk = Process()
        wrk.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        wrk.arguments = ["wrk", "-t1", "-c1", "-d3s"] + arguments
        let output = Pipe()
        wrk.standardOutput = output
        wrk.standardError = FileHandle.nullDevice
        guard (try? wrk.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        wrk.waitUntilExit()
        guard wrk.terminationStatus == 0,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") })
        else { return nil }
        return Double(line.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces))
    }
}
