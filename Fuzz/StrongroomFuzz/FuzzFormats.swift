// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

/// What the SDK reads back from a server or a file.
enum FuzzFormats {
    static func plainJSON(_ input: UnsafeBufferPointer<UInt8>) {
        _ = RecordResponse.plainJSON(input)
    }

    static func eak(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? EncryptedAccessKey(wireFormat: input.text)
    }

    static func encryptedField(_ input: UnsafeBufferPointer<UInt8>) {
        _ = try? EncryptedField(wireFormat: input.text)
    }

    /// The key of the e3db-python file vectors the seed corpus holds, so mutations of a valid file reach the
    /// stream's decryption as well as the header.
    private static let accessKey = (try? Base64URL.decode("aejFJgXtFwdYTxeuWwOJnWvRf-U8kVcweWcn2SkaHXM")).flatMap {
        try? AccessKey(rawRepresentation: SecureBytes(copying: $0))
    }

    /// The file arrives in pieces of a size the input's first byte picks, as a network read would cut it.
    static func fileFormat(_ input: UnsafeBufferPointer<UInt8>) {
        guard let first = input.first, let accessKey else { return }
        let piece = Int(first) + 1
        var decryptor = FileDecryptor(accessKey: accessKey)
        var output: [UInt8] = []
        var offset = 1
        while offset < input.count {
            let end = min(offset + piece, input.count)
            do {
                try decryptor.update(
                    UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: input[offset..<end])),
                    into: &output
                )
            } catch {
                return
            }
            output.removeAll(keepingCapacity: true)
            offset = end
        }
        _ = try? decryptor.finalize(into: &output)
    }
}
