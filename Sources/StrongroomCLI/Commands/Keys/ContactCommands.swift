// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCrypto
import StrongroomWire

/// `strongroom keys fingerprint [CLIENT]`: the safety number to compare with a contact out of band, or this client's
/// own half.
struct Fingerprint: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the safety number to compare with a contact (read aloud or side by side), or without a "
            + "contact this client's own half."
    )
    @OptionGroup var profile: ProfileOptions
    @Argument(help: "The contact: a client ID or a profile name.") var client: String?
    @Flag(help: "Print only the digits.") var digits = false

    func run() async throws {
        let own = try await profile.client()
        guard let client else {
            let half = own.safetyNumberHalf
            print(digits ? half.digits : "your half of every safety number: " + half.groups.joined(separator: " "))
            return
        }
        let contactID = try await ClientReference.resolve(client, option: "CLIENT", profiles: profile.directory)
        let id = ClientID(contactID).description
        let number = try await naming(missing: "no client \(client) on this server") {
            try await own.safetyNumber(with: contactID)
        }
        if digits {
            print(number.digits)
            return
        }
        print(number.description)
        switch try await own.contactVerification(of: contactID) {
        case .verified:
            print("verified: \(id)'s keys are the ones you compared")
        case .unverified:
            print(
                "not verified: compare it with the number \(id)'s owner sees, then run "
                    + "`strongroom keys verify \(client) --safety-number \"...\"`"
            )
        case .changed:
            print(
                "WARNING: \(id)'s keys changed since you verified them; nothing is sent to them until you compare "
                    + "this new number with its owner and verify again"
            )
        }
    }
}

/// `strongroom keys verify CLIENT --safety-number N`: marks a contact verified once the numbers match.
struct VerifyContact: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Mark a contact verified once the safety number its owner reads matches yours (exit 3 if not); "
            + "a later change of its keys is then refused, not taken."
    )
    @OptionGroup var profile: ProfileOptions
    @Argument(help: "The contact: a client ID or a profile name.") var client: String
    @Option(help: "The number its owner sees (spaces and dashes allowed).") var safetyNumber: String

    func run() async throws {
        let own = try await profile.client()
        let contactID = try await ClientReference.resolve(client, option: "CLIENT", profiles: profile.directory)
        try await naming(missing: "no client \(client) on this server") {
            try await own.verifyContact(contactID, safetyNumber: safetyNumber)
        }
        print("verified \(ClientID(contactID).description): a change of its keys is refused from now on")
    }
}
