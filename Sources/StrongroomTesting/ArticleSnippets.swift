// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Keeps DocC articles honest: the code a test runs and the code an article shows are compared, snippet by snippet.
///
/// In a test, mark a snippet with `// porting: <name>` … `// end porting`; in the article, put
/// `<!-- porting: <name> -->` … `<!-- end porting -->` around its code fence.
public enum ArticleSnippets {
    /// The marked snippets in `text`, by name, dedented.
    public static func snippets(in text: String) -> [String: String] {
        var result: [String: String] = [:]
        var name: String?
        var lines: [Substring] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// porting: ") || trimmed.hasPrefix("<!-- porting: ") {
                name = String(trimmed.split(separator: " ")[2])
                lines = []
            } else if trimmed == "// end porting" || trimmed == "<!-- end porting -->", let current = name {
                let indent =
                    lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                    .map { $0.prefix { $0 == " " }.count }.min() ?? 0
                result[current] = lines.map { String($0.dropFirst(min(indent, $0.count))) }.joined(separator: "\n")
                name = nil
            } else if name != nil, !trimmed.hasPrefix("```") {
                lines.append(line)
            }
        }
        return result
    }

    /// The snippets of the article at `articlePath` (relative to the repository) and of the test file `testFile`
    /// (pass `#filePath`).
    public static func compare(
        article articlePath: String,
        testFile: String
    ) throws -> (quoted: [String: String], tested: [String: String]) {
        let root = URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let article = try String(contentsOf: root.appending(path: articlePath), encoding: .utf8)
        let tests = try String(contentsOf: URL(fileURLWithPath: testFile), encoding: .utf8)
        return (snippets(in: article), snippets(in: tests))
    }
}
