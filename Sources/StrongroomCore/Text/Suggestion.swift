// Strongroom — SPDX-License-Identifier: Apache-2.0

/// "Did you mean …?" for a mistyped command name: the closest of the known names by edit distance, when it is close
/// enough to be a typo (at most a third of the word's letters, and at least one, changed).
package enum Suggestion {
    /// The name among `names` closest to `word`, or nil when none is plausibly what was meant.
    package static func closest(to word: String, among names: [String]) -> String? {
        // Bounded work: command names are short; a longer word is not a typo of one.
        guard (1...64).contains(word.count) else { return nil }
        let limit = max(1, word.count / 3)
        var best: (name: String, distance: Int)?
        for name in names where name.count <= 64 {
            let distance = editDistance(Array(word.lowercased()), Array(name))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (name, distance) }
            // A prefix of a name (`shar` for `sharing`) is a typo too.
            if name.hasPrefix(word.lowercased()), word.count >= 3, best == nil { best = (name, limit) }
        }
        return best?.name
    }

    /// Edit distance counting an insertion, a deletion, a replacement or a swap of two neighbouring characters as
    /// one edit (optimal string alignment), so `raed` is one edit from `read`, as a typist's slip is; O(|a|·|b|)
    /// with three rows.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)  // row i - 2
        var previous = Array(0...b.count)  // row i - 1
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }

    /// The first word of `arguments` that is not a command of the tree at the point it appears, with the command
    /// path before it and the names it could have been; nil when every word up to the first option or argument of a
    /// leaf command is known. `children` gives a command's subcommands as (names, command) pairs; a command with a
    /// default subcommand (`takesArguments`) hands an unknown word to it (`strongroom protect IN OUT`), so that word
    /// is not a typo.
    package static func unknownCommand<Command>(
        in arguments: [String],
        root: Command,
        children: (Command) -> [(names: [String], command: Command)],
        takesArguments: (Command) -> Bool = { _ in false }
    ) -> (path: [String], word: String, known: [String])? {
        var current = root
        var path: [String] = []
        for argument in arguments.prefix(16) {
            let subcommands = children(current)
            guard !subcommands.isEmpty, !argument.hasPrefix("-") else { return nil }
            guard let next = subcommands.first(where: { $0.names.contains(argument) }) else {
                if takesArguments(current) { return nil }
                return (path, argument, subcommands.flatMap(\.names))
            }
            path.append(argument)
            current = next.command
        }
        return nil
    }

    /// The one-line refusal of a mistyped command (`error: 'strongroom store' has no command 'lst' (did you mean
    /// 'list'?); see 'strongroom store --help'`), or nil when `arguments` name no unknown command. `help` as the
    /// first word is ArgumentParser's own and always passes.
    package static func unknownCommandMessage<Command>(
        in arguments: [String],
        rootName: String,
        root: Command,
        children: (Command) -> [(names: [String], command: Command)],
        takesArguments: (Command) -> Bool
    ) -> String? {
        guard arguments.first != "help",
            let unknown = unknownCommand(in: arguments, root: root, children: children, takesArguments: takesArguments)
        else { return nil }
        let path = ([rootName] + unknown.path).joined(separator: " ")
        let hint = closest(to: unknown.word, among: unknown.known).map { " (did you mean '\($0)'?)" } ?? ""
        return "error: '\(path)' has no command '\(unknown.word)'\(hint); see '\(path) --help'"
    }
}
