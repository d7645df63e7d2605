// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import SwiftASN1

extension PEMSerializable {
    /// The DER encoding; a failure is ``PKIError/Code/invalidEncoding`` naming `what`.
    func encodedDER(naming what: String) throws(PKIError) -> [UInt8] {
        do {
            var serializer = DER.Serializer()
            try serializer.serialize(self)
            return serializer.serializedBytes
        } catch {
            throw PKIError(.invalidEncoding, "the \(what) could not be encoded", underlying: error)
        }
    }

    /// The PEM encoding; a failure is ``PKIError/Code/invalidEncoding`` naming `what`.
    func encodedPEM(naming what: String) throws(PKIError) -> String {
        do {
            return try serializeAsPEM().pemString
        } catch {
            throw PKIError(.invalidEncoding, "the \(what) could not be encoded", underlying: error)
        }
    }
}
