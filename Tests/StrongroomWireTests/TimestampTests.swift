// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomWire
import Testing

@Suite struct TimestampTests {
    @Test(
        "always six fractional digits and a Z",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000000Z"),
            (1_625_946_952_738_703, "2021-07-10T19:55:52.738703Z"),
            (1_700_000_000_000_001, "2023-11-14T22:13:20.000001Z"),
            (1_700_000_000_500_000, "2023-11-14T22:13:20.500000Z"),
            (-1, "1969-12-31T23:59:59.999999Z"),
            (-62_135_596_800_000_000, "0001-01-01T00:00:00.000000Z"),
            (253_402_300_799_999_999, "9999-12-31T23:59:59.999999Z"),
            (253_402_300_800_000_000, "10000-01-01T00:00:00.000000Z"),
        ]
    )
    func format(microseconds: Int64, expected: String) {
        #expect(Timestamp(microseconds: microseconds).description == expected)
    }

    @Test(
        "any Int64 prints without trapping",
        arguments: [Int64.min, Int64.min + 1, Int64.max, -62_167_219_200_000_001]
    )
    func extremes(microseconds: Int64) {
        #expect(Timestamp(microseconds: microseconds).description.hasSuffix("Z"))
    }

    @Test(
        "parses what the SDKs send: Z or offsets, 0 to 9 fractional digits",
        arguments: [
            ("2021-07-10T19:55:52.738703Z", Int64(1_625_946_952_738_703)),
            ("2021-07-10T19:55:52Z", 1_625_946_952_000_000),
            ("2021-07-10T12:55:52.738703-07:00", 1_625_946_952_738_703),
            ("2021-07-10T21:55:52.7+02:00", 1_625_946_952_700_000),
            ("2021-07-10T19:55:52.738703123Z", 1_625_946_952_738_703),
            ("2021-07-10 19:55:52.738703", 1_625_946_952_738_703),
            ("2021-07-10T19:55:52+0000", 1_625_946_952_000_000),
        ]
    )
    func parse(text: String, microseconds: Int64) throws {
        #expect(try #require(Timestamp(iso8601: text)).microseconds == microseconds)
    }

    @Test(
        "rejects malformed timestamps",
        arguments: [
            "", "2021-07-10", "2021-13-10T19:55:52Z", "2021-07-10T25:55:52Z", "2021-07-10T19:55:52.Z",
            "2021-07-10T19:55:52+24:80", "2021-07-10T19:55:52Zjunk", "yesterday",
        ]
    )
    func rejects(text: String) {
        #expect(Timestamp(iso8601: text) == nil)
    }

    @Test("round-trips through JSON as its wire string")
    func codable() throws {
        let stamp = Timestamp(microseconds: 1_625_946_952_738_703)
        let data = try JSONEncoder().encode([stamp])
        #expect(String(decoding: data, as: UTF8.self) == "[\"2021-07-10T19:55:52.738703Z\"]")
        #expect(try JSONDecoder().decode([Timestamp].self, from: data) == [stamp])
    }
}
