// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import PropertyBased
import StrongroomCore
import StrongroomWire
import Testing

/// Numbers from the wire convert to integers only when they are whole and fit, whatever their magnitude.
@Suite struct JSONValueFuzzTests {
    @Test("integerValue is Int64(exactly:) for every double, NaN and infinities included")
    func integerValue() async {
        let doubles = Gen.oneOf(
            Gen.double(in: -1e300...1e300),
            Gen.double(in: -1e19...1e19),
            Gen.int64().map { Double($0) },
            Gen.element(of: [Double.nan, .infinity, -.infinity, 9.223372036854775807e18, -9.223372036854775808e18, 0.5])
                .map { $0 ?? 0 }
        )
        await propertyCheck(count: 5000, input: doubles) { value in
            #expect(JSONValue.number(value).integerValue == Int64(exactly: value))
        }
    }

    @Test("number texts from the wire decode and convert without trapping")
    func numberTexts() async throws {
        let texts = Gen.element(of: ["1", "-", "9", "0", ".", "e", "E", "+", "3"]).map { $0 ?? "" }.array(of: 1...30)
            .map { $0.joined() }
        await propertyCheck(count: 3000, input: texts) { text in
            guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return }
            if let integer = value.integerValue, case .number(let number) = value {
                #expect(Double(integer) == number)
            }
        }
    }
}
