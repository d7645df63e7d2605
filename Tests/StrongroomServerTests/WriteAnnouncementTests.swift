// Strongroom — SPDX-License-Identifier: Apache-2.0
import Testing

@testable import StrongroomServer

/// The text instances on one database announce their writes with (`NOTIFY`'s payload): split under its size, read
/// with every bound checked, anything unreadable taken as "anything may have changed".
struct WriteAnnouncementTests {
    @Test("types round-trip; many types become several messages, each under 7,900 bytes and 1,000 types")
    func roundTrip() throws {
        let few: Set<String> = ["sr1.aaaa", "notes", "a type with spaces"]
        let messages = WriteAnnouncement.messages(instance: "i1", .types(few))
        #expect(messages.count == 1)
        let read = try #require(WriteAnnouncement(message: messages[0]))
        #expect(read == WriteAnnouncement(instance: "i1", writes: .types(few)))

        let many = Set((0..<3_000).map { "sr1.type-\($0)-" + String(repeating: "x", count: $0 % 40) })
        let split = WriteAnnouncement.messages(instance: "i2", .types(many))
        #expect(split.count > 1)
        #expect(split.allSatisfy { $0.utf8.count <= WriteAnnouncement.maximumBytes })
        var union = Set<String>()
        for message in split {
            let read = try #require(WriteAnnouncement(message: message))
            guard case .types(let types) = read.writes else {
                Issue.record("not types: \(message.prefix(80))"); continue
            }
            #expect(types.count <= WriteAnnouncement.maximumTypes)
            union.formUnion(types)
        }
        #expect(union == many)
    }

    @Test("unknown writes, and types no message can carry, are sent as *")
    func unknown() throws {
        #expect(WriteAnnouncement.messages(instance: "i", .unknown) == ["v1 i\n*"])
        let long = String(repeating: "t", count: WriteAnnouncement.maximumTypeBytes + 1)
        #expect(WriteAnnouncement.messages(instance: "i", .types([long])) == ["v1 i\n*"])
        #expect(WriteAnnouncement.messages(instance: "i", .types(["two\nlines"])) == ["v1 i\n*"])
        #expect(try #require(WriteAnnouncement(message: "v1 i\n*")).writes == .unknown)
    }

    @Test("hostile payloads: not ours is nil; past a bound wakes everyone; nothing crashes")
    func hostile() {
        #expect(WriteAnnouncement(message: "") == nil)
        #expect(WriteAnnouncement(message: "v2 i\nt") == nil)
        #expect(WriteAnnouncement(message: "v1 " + String(repeating: "i", count: 300)) == nil)
        #expect(WriteAnnouncement(message: String(repeating: "v1 i\n", count: 5_000)) == nil, "over the size")
        let blank = WriteAnnouncement(message: "v1 i\nt\n\nu")
        #expect(blank?.writes == .unknown)
        let tooMany = WriteAnnouncement(message: "v1 i" + String(repeating: "\nt", count: 1_001))
        #expect(tooMany?.writes == .unknown)
        #expect(WriteAnnouncement(message: "v1 i")?.writes == .types([]))
    }
}
