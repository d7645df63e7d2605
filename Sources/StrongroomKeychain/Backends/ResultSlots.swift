// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import Synchronization

/// One result slot per index, filled from several threads (each index by exactly one), read once all are done:
/// how a batch is sealed on every core.
final class ResultSlots<Value: Sendable>: Sendable {
    private let slots: Mutex<[Result<Value, KeychainError>?]>

    init(count: Int) {
        slots = Mutex(Array(repeating: nil, count: count))
    }

    func set(_ index: Int, _ result: Result<Value, KeychainError>) {
        slots.withLock { $0[index] = result }
    }

    /// Every value in index order, or the first error by index.
    func values() throws(KeychainError) -> [Value] {
        let results = slots.withLock { $0 }
        var values: [Value] = []
        values.reserveCapacity(results.count)
        for result in results {
            guard let result else { throw KeychainError(.invalidParameters, "an item was not sealed") }
            values.append(try result.get())
        }
        return values
    }
}
