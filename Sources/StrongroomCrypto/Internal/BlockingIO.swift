// Strongroom — SPDX-License-Identifier: Apache-2.0
import Dispatch
import Synchronization

/// Runs blocking file work on a Dispatch worker thread so it never occupies a thread of the cooperative pool.
enum BlockingIO {
    private static let queue = DispatchQueue(label: "strongroom.crypto.blocking-io", attributes: .concurrent)

    /// Runs `body` off the cooperative pool. `body` receives a flag that turns true when the calling task is
    /// cancelled; it should check it between blocks and stop with ``CryptoError/cancelled(fileID:line:)``.
    static func run<R: Sendable>(
        _ body: @escaping @Sendable (_ isCancelled: @Sendable () -> Bool) throws(CryptoError) -> R
    ) async throws(CryptoError) -> R {
        let cancelled = CancellationFlag()
        let result: Result<R, CryptoError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                queue.async {
                    continuation.resume(
                        returning: Result { () throws(CryptoError) -> R in
                            try body { cancelled.isSet }
                        }
                    )
                }
            }
        } onCancel: {
            cancelled.set()
        }
        return try result.get()
    }
}

/// A flag set once when a task is cancelled.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
