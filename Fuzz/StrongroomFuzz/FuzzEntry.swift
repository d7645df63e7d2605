// Strongroom — SPDX-License-Identifier: Apache-2.0
//
// libFuzzer entry points. One binary holds every target; `STRONGROOM_FUZZ_TARGET` picks the one a run exercises
// (Scripts/fuzz.sh sets it). Built only with STRONGROOM_FUZZ=1, which instruments this package's own modules with
// `-sanitize=fuzzer,address` (see Package.swift); libFuzzer supplies `main`.
import Foundation

/// The target this process fuzzes, chosen once in `LLVMFuzzerInitialize`.
nonisolated(unsafe) private var selected: FuzzTarget?

@_cdecl("LLVMFuzzerInitialize")
func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
    let name = ProcessInfo.processInfo.environment["STRONGROOM_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("set STRONGROOM_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: size == 0 ? nil : data, count: size)
    selected?.run(input)
    return 0
}
