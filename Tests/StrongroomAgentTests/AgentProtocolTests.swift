// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomAgent
import Testing

/// The agent's frames: every length checked before anything is built or read.
@Suite struct AgentProtocolTests {
    @Test("a request is SRA1, the operation, a big-endian length and the payload; a payload over 256 bytes is refused")
    func requestFrame() throws {
        #expect(try AgentProtocol.request(.key, Array("ab".utf8)) == Array("SRA1".utf8) + [1, 0, 2, 0x61, 0x62])
        #expect(try AgentProtocol.request(.status) == Array("SRA1".utf8) + [2, 0, 0])
        #expect(try AgentProtocol.request(.key, [UInt8](repeating: 7, count: 256)).count == 7 + 256)
        #expect(throws: AgentProtocol.Malformed.self) {
            try AgentProtocol.request(.key, [UInt8](repeating: 7, count: 257))
        }
    }

    @Test("an answer header is the status and a length of 0 to 4,096; any other length is refused")
    func answerHeader() throws {
        #expect(try AgentProtocol.answerHeader(.ok, length: 32) == [0, 0, 32])
        #expect(try AgentProtocol.answerHeader(.unknown, length: 4_096) == [1, 0x10, 0])
        #expect(throws: AgentProtocol.Malformed.self) { try AgentProtocol.answerHeader(.ok, length: 4_097) }
        #expect(throws: AgentProtocol.Malformed.self) { try AgentProtocol.answerHeader(.ok, length: -1) }
    }

    @Test("a status too long for its frame leaves keychains out from the end and counts them")
    func statusFits() throws {
        let long = String(repeating: "k", count: 1_000)
        let status = AgentStatus(
            pid: 1,
            socket: "/run/agent.sock",
            keychains: (0..<10).map { "/\(long)/\($0)" },
            idleTimeoutSeconds: 60,
            secondsUntilIdleExit: 60,
            keychainsNotListed: nil
        )
        let body = try #require(status.encoded(maximumBytes: AgentProtocol.maximumAnswerPayload))
        #expect(body.count <= AgentProtocol.maximumAnswerPayload)
        let decoded = try JSONDecoder().decode(AgentStatus.self, from: Data(body))
        #expect(decoded.keychains.count + (decoded.keychainsNotListed ?? 0) == 10)
        #expect(decoded.keychains == Array(status.keychains.prefix(decoded.keychains.count)))
        // A socket path alone longer than the frame: no status rather than a truncated one.
        var hopeless = status
        hopeless.socket = String(repeating: "s", count: 5_000)
        #expect(hopeless.encoded(maximumBytes: AgentProtocol.maximumAnswerPayload) == nil)
    }
}
