// Strongroom — SPDX-License-Identifier: Apache-2.0
// swift-crypto also exports a `CryptoError`, so it is imported only in this file.
import Crypto
import Foundation

/// Standard base64 of the MD5 of `bytes`, computed independently of the code under test.
func md5Base64(_ bytes: [UInt8]) -> String {
    Data(Insecure.MD5.hash(data: bytes)).base64EncodedString()
}
