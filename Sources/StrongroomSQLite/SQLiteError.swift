// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSQLCipher
package import StrongroomCore

/// An error from SQLCipher, keeping SQLite's primary result code (GRDB's `DatabaseError` idea): match on the code.
package struct SQLiteError: StrongroomError {
    /// SQLite's primary result code (`SQLITE_BUSY`, `SQLITE_NOTADB`…), extensible by construction.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The primary result code.
        package let rawValue: Int32

        init(_ rawValue: Int32) { self.rawValue = rawValue & 0xFF }

        /// `SQLITE_ERROR`: SQL error or missing database.
        package static let error = Code(SQLITE_ERROR)
        /// `SQLITE_BUSY`: another connection holds the lock.
        package static let busy = Code(SQLITE_BUSY)
        /// `SQLITE_CONSTRAINT`: a UNIQUE, NOT NULL or CHECK constraint failed.
        package static let constraint = Code(SQLITE_CONSTRAINT)
        /// `SQLITE_CORRUPT`: the file is damaged.
        package static let corrupt = Code(SQLITE_CORRUPT)
        /// `SQLITE_NOTADB`: not a database, or (SQLCipher) the wrong key. Nothing was read.
        package static let notADatabase = Code(SQLITE_NOTADB)
        /// `SQLITE_CANTOPEN`: the file cannot be opened.
        package static let cannotOpen = Code(SQLITE_CANTOPEN)
        /// `SQLITE_MISUSE`: the API was used wrongly (a bug of ours).
        package static let misuse = Code(SQLITE_MISUSE)

        package var description: String { String(cString: sqlite3_errstr(rawValue)) }
    }

    package let code: Code
    package let context: ErrorContext

    package init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }

    init(_ code: Int32, _ message: String, fileID: String = #fileID, line: Int = #line) {
        self.init(Code(code), message, fileID: fileID, line: line)
    }
}
