// Strongroom — SPDX-License-Identifier: Apache-2.0
import NIOCore
import StrongroomCore
import Testing

@testable import StrongroomTransport

/// Low-level failures read as what happened, in the user's words.
@Suite struct TransportFailureTests {
    @Test("a connection that never opened is reported as no answer while connecting, not as a closed connection")
    func connectTimeout() {
        let error = TransportFailure.describe(ChannelError.connectTimeout(.seconds(10)), url: "http://127.0.0.1:9/")
        #expect(error.code == .unreachable)
        #expect(error.context.message.contains("while connecting"), "\(error.context.message)")
        #expect(!error.context.message.contains("closed the connection"))
    }

    @Test("a connection closed before an answer is reported as closed")
    func closedConnection() {
        let error = TransportFailure.describe(ChannelError.eof, url: "http://127.0.0.1:9/")
        let message = error.context.message
        #expect(message.contains("closed the connection without an HTTP answer"), "\(message)")
    }
}
