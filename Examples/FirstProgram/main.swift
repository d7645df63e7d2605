// Strongroom — SPDX-License-Identifier: Apache-2.0
// A first Strongroom program (the README's): two clients register, one writes a record and shares its type, the
// other reads it. Run it beside a server: `strongroom-example-first-program http://127.0.0.1:8000 TOKEN`.
import Foundation
import StrongroomClient

let arguments = CommandLine.arguments
guard arguments.count == 3, let server = URL(string: arguments[1]) else {
    print("usage: strongroom-example-first-program SERVER-URL REGISTRATION-TOKEN")
    exit(64)
}
let token = arguments[2]

// Each client keeps its configuration (its keys and credentials): save it, as the CLI's profiles do.
let alice = Client(configuration: try await Client.register(token: token, clientName: "alice", apiURL: server))
let bob = Client(configuration: try await Client.register(token: token, clientName: "bob", apiURL: server))

// Alice writes a record: its fields are encrypted before they leave her process; `plain` is not.
let record = try await alice.write(type: "note", data: ["body": "first secret"], plain: ["topic": "hello"])
// She shares the type with bob: bob's key, checked against the server's key log, wraps the type's key.
try await alice.share(type: "note", readerID: bob.configuration.clientID)
// Bob reads and decrypts it; the server only ever held ciphertext.
let read = try await bob.read(recordID: record.meta.recordID)
print(read.data["body"] ?? "")
