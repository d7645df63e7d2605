// Strongroom — SPDX-License-Identifier: Apache-2.0
//
// SwiftPM links an executable's `main` to its module's entry point, so this binary keeps one and hands over to
// libFuzzer's driver (`LLVMFuzzerRunDriver`, which parses libFuzzer's own flags and calls `LLVMFuzzerInitialize`).
import Foundation

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv, { data, size in fuzzerTestOneInput(data, size) }))
