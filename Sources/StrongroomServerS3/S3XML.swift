// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// Reads the few values Strongroom needs from an S3 XML answer (`UploadId`, an error `Code`, the uploads of a
/// listing). The answers are small, bounded by the caller, and the values are plain text; a tag that is missing
/// or malformed yields nothing rather than an error.
enum S3XML {
    /// The text of every `<tag>…</tag>` in `xml`, in order, with the five predefined entities decoded; at most
    /// `limit` values.
    static func values(of tag: String, in xml: Substring, limit: Int = 10_000) -> [String] {
        elements(tag, in: xml, limit: limit).map(unescape)
    }

    /// The first value of `tag`, if any.
    static func value(of tag: String, in xml: Substring) -> String? { values(of: tag, in: xml, limit: 1).first }

    /// Each `<element>…</element>` block's text (e.g. every `<Upload>` of a listing), at most `limit`.
    static func elements(_ element: String, in xml: Substring, limit: Int = 10_000) -> [Substring] {
        var blocks: [Substring] = []
        var rest = xml[...]
        while blocks.count < limit, let start = rest.range(of: "<\(element)>") {
            guard let end = rest[start.upperBound...].range(of: "</\(element)>") else { break }
            blocks.append(rest[start.upperBound..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        return blocks
    }

    /// The `<?xml?>`-less body of a CompleteMultipartUpload request.
    static func completeMultipartUpload(etags: [String]) -> String {
        var xml = "<CompleteMultipartUpload>"
        for (index, etag) in etags.enumerated() {
            xml += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(escape(etag))</ETag></Part>"
        }
        return xml + "</CompleteMultipartUpload>"
    }

    private static let entities = [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")]

    private static func unescape(_ text: Substring) -> String {
        guard text.contains("&") else { return String(text) }
        var result = String(text)
        for (entity, character) in entities { result = result.replacingOccurrences(of: entity, with: character) }
        return result
    }

    private static func escape(_ text: String) -> String {
        var result = text.replacingOccurrences(of: "&", with: "&amp;")
        for (entity, character) in entities.dropLast() {
            result = result.replacingOccurrences(of: character, with: entity)
        }
        return result
    }
}
