// Strongroom — SPDX-License-Identifier: Apache-2.0

/// The suspension under every "wait for a signal, at most this long" of the package (``ChangeNotifier``, the
/// server's per-type long-poll wake-ups): returns when `wake` resumes the continuation `park` kept, when `timeout`
/// has passed (`wake` is then called), or when the task is cancelled (`wake` too) — whichever comes first.
///
/// - Parameters:
///   - park: keeps the continuation where `wake` finds it and returns true; returns false, keeping nothing, when
///     the signal already came (the wait then returns at once).
///   - wake: resumes the kept continuation if it is still kept; called from the timer and on cancellation, maybe
///     after the signal already resumed it, so it must resume at most once.
package func waitForSignal(
    timeout: Duration,
    park: (CheckedContinuation<Void, Never>) -> Bool,
    wake: @escaping @Sendable () -> Void
) async {
    await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            guard park(continuation) else {
                continuation.resume()
                return
            }
            Task {
                // Cancellation ends the sleep early, which is what a cancelled waiter wants.
                try? await Task.sleep(for: timeout)
                wake()
            }
        }
    } onCancel: {
        wake()
    }
}
