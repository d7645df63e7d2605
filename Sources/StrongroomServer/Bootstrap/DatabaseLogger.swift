// Strongroom — SPDX-License-Identifier: Apache-2.0
package import Logging

/// The logger the SQL layer gets: never below `info`, so that `debug`/`trace` server logs never carry SQL text
/// with bound values (registration tokens, secret hashes, EAKs, plain metadata).
package func databaseLogger(_ logger: Logger) -> Logger {
    var quiet = logger
    quiet.logLevel = max(logger.logLevel, .info)
    return quiet
}
