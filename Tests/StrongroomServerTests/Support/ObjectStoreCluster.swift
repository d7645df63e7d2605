// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomServerTesting
import StrongroomTesting

/// A throw-away Ceph cluster of `Scripts/radosgw.sh`, recorded in `state`, for a test that stops and restarts its
/// object store (stopping the shared one would fail every other S3 test). The ports are the first ones tried.
struct ObjectStoreCluster {
    let state: String
    let monitorPort: Int
    let gatewayPort: Int

    /// Runs `Scripts/radosgw.sh command` (`start`, `stop`, `halt`, `resume`); its last line of output.
    func run(_ command: String) async throws -> String {
        let outcome = try await ExternalProcess.run(
            URL(fileURLWithPath: PythonSDK.path("Scripts/radosgw.sh")),
            arguments: [command],
            environment: [
                "STRONGROOM_RGW_STATE": state, "STRONGROOM_RGW_MON_PORT": "\(monitorPort)",
                "STRONGROOM_RGW_PORT": "\(gatewayPort)",
            ]
        )
        guard outcome.status == 0 else { throw TestFailure("radosgw.sh \(command): \(outcome.output)") }
        return outcome.output.split(separator: "\n").last.map(String.init) ?? ""
    }

    /// Starts a cluster of its own recorded in `directory`, runs `body` with its URL
    /// (`http://ACCESS:SECRET@127.0.0.1:PORT`), and stops it whatever happens.
    static func with(
        in directory: URL,
        monitorPort: Int,
        gatewayPort: Int,
        _ body: (URLComponents, ObjectStoreCluster) async throws -> Void
    ) async throws {
        let cluster = ObjectStoreCluster(
            state: directory.appending(path: "radosgw.state").path,
            monitorPort: monitorPort,
            gatewayPort: gatewayPort
        )
        let started = try await cluster.run("start")
        do {
            guard let url = URLComponents(string: started) else { throw TestFailure("radosgw.sh start: \(started)") }
            try await body(url, cluster)
        } catch {
            _ = try? await cluster.run("stop")
            throw error
        }
        _ = try await cluster.run("stop")
    }
}
