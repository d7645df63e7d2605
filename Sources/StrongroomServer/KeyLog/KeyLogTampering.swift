// Strongroom — SPDX-License-Identifier: Apache-2.0
package import StrongroomCrypto
package import StrongroomWire

/// A decorator of the key log's answers: the seam the malicious-server tests use (`StrongroomServerTesting`'s
/// `KeyLogMalice`) to serve a forked tree, a stale checkpoint, substituted keys or a history with a leaf left out.
///
/// Nothing in a deployment sets one: ``ServerConfiguration/keyLogTampering`` is package API, so only this package's
/// tests can, and with none set every answer is the honest one. Each requirement is given the honest answer and
/// returns the one served.
package protocol KeyLogTampering: Sendable {
    /// The tree checkpoints and proofs are made from, given the log's.
    func servedTree(_ honest: MerkleTree) -> MerkleTree
    /// The second a new checkpoint is dated, given the clock's.
    func checkpointSecond(_ honest: Int64) -> Int64
    /// A client lookup's answer (`GET /v1/storage/clients/{id}`), given the stored keys; `log` may append to the
    /// log (the leaf is then proven like any other), `now` is the server's time in microseconds.
    func lookUp(_ info: inout ClientInfo, log: any KeyLogStore, now: UInt64) async throws
    /// The leaves left out of a client's history (`/v2/keylog/history`).
    func hiddenLeaves(of clientID: String) -> Set<UInt64>
    /// The key leaf a client lookup proves, given the client's newest (a server replaying keys a client replaced
    /// serves an older one, after ``lookUp(_:log:now:)`` put its keys in the answer).
    func servedKeyLeaf(of clientID: String, newest: StoredKeyLogLeaf) -> StoredKeyLogLeaf
}
