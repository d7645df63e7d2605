// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import Testing

@Suite struct HexTests {
    @Test("hex text and bytes round-trip in either case; odd lengths and other characters are nil")
    func roundTrip() {
        let bytes: [UInt8] = [0x00, 0x0f, 0xa5, 0xff]
        #expect(bytes.hexString == "000fa5ff")
        #expect(hexBytes("000fa5ff") == bytes)
        #expect(hexBytes("000FA5FF") == bytes)
        #expect(hexBytes("") == [])
        #expect(hexBytes("abc") == nil)
        #expect(hexBytes("0g") == nil)
        #expect(hexBytes("0 ") == nil)
    }
}
