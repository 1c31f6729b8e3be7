import SusiCore

/// A command line split into options and positional arguments, checked against a command.
public struct ParsedCommandLine: Sendable {
  /// Option values by long name (`--server`); flags map to `""`. The last occurrence wins.
  public var options: [String: String] = [:]
  public var arguments: [String] = []

  public init(options: [String: String] = [:], arguments: [String] = []) {
    self.options = options
    self.arguments = arguments
  }

  public func has(_ option: OptionName) -> Bool { options[option] != nil }
  public func value(_ option: OptionName) -> String? { options[option] }

  /// `--port`'s value, or `fallback` when it is not given.
  public func port(default fallback: Int) throws(UsageError) -> Int {
    guard let text = value(.port) else { return fallback }
    guard let port = Int(text), (0...65535).contains(port) else {
      throw UsageError("--port takes a number from 0 to 65535, not '\(text)'")
    }
    return port
  }
}

/// What went wrong on the command line; printed with the usage line, exit 64.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  /// The closest valid word, when the mistake looks like a typo.
  public var suggestion: String?
  public init(_ message: String, suggestion: String? = nil) {
    self.message = message
    self.suggestion = suggestion
  }
  public var description: String {
    if let suggestion { "\(message); did you mean '\(suggestion)'?" } else { message }
  }

  /// Prints the error and how `command` is used, the same way for every command; returns the
  /// usage exit code (64).
  public func report(_ command: CommandSpec?) -> Int32 {
    StandardStream.error.write("susi: \(self)\n\(HelpText.usageLine(command))\n")
    return ExitCode.usage
  }
}

extension ParsedCommandLine {
  /// Parses `words` (after the command name) for `command`, accepting its options and `common`.
  /// Options may come before, between or after arguments; `--` ends options. Short options may
  /// be combined (`-hp 0`) and take their value attached (`-p0`).
  public static func parse(_ words: [String], for command: CommandSpec, common: [OptionSpec])
    throws(UsageError) -> ParsedCommandLine
  {
    let specs = command.options + common
    var words = words
    var result = ParsedCommandLine()
    var index = 0
    var optionsEnded = false
    while index < words.count {
      let word = words[index]
      index += 1
      if optionsEnded || word == "-" || !word.hasPrefix("-") {
        result.arguments.append(word)
        continue
      }
      if word == "--" {
        optionsEnded = true
        continue
      }
      if let split = splitShortOptions(word, specs: specs) {
        words.replaceSubrange((index - 1)..<index, with: split)
        index -= 1
        continue
      }
      var name = word
      var inlineValue: String?
      if let equals = word.firstIndex(of: "="), word.hasPrefix("--") {
        name = String(word[..<equals])
        inlineValue = String(word[word.index(after: equals)...])
      }
      guard let spec = specs.first(where: { $0.name == name || $0.short == name }) else {
        var message = "unknown option '\(name)' for 'susi \(command.name)'"
        let suggestion = suggestOption(for: name, specs: specs)
        if suggestion == nil, command.arguments.upperBound > 0 {
          message += " (to pass text that starts with '-', put '--' before it)"
        }
        throw UsageError(message, suggestion: suggestion)
      }
      if spec.takesValue {
        if let inlineValue {
          result.options[spec.name] = inlineValue
        } else {
          guard index < words.count else {
            throw UsageError("option '\(spec.name)' needs a value (\(spec.valueName!))")
          }
          result.options[spec.name] = words[index]
          index += 1
        }
      } else {
        if let inlineValue {
          guard spec.inlineValues.contains(inlineValue) else {
            guard !spec.inlineValues.isEmpty else {
              throw UsageError("option '\(spec.name)' takes no value")
            }
            throw UsageError(
              "option '\(spec.name)' takes nothing or "
                + spec.inlineValues.map { "=\($0)" }.joined(separator: ", ")
                + ", not '=\(inlineValue)'",
              suggestion: Spelling.closest(to: inlineValue, in: spec.inlineValues))
          }
        }
        result.options[spec.name] = inlineValue ?? ""
      }
    }
    if result.has(.help) { return result }
    guard command.arguments.contains(result.arguments.count) else {
      if result.arguments.count > command.arguments.upperBound {
        let extra = result.arguments[command.arguments.upperBound...].joined(separator: " ")
        throw UsageError("too many arguments for 'susi \(command.name)': \(extra)")
      }
      throw UsageError("'susi \(command.name)' needs more arguments")
    }
    return result
  }

  /// `-hp0` as `["-h", "-p", "0"]`: a word of several one-letter options, the last of which may
  /// carry its value. Nil unless the word is such a cluster of known options.
  static func splitShortOptions(_ word: String, specs: [OptionSpec]) -> [String]? {
    guard word.count > 2, word.hasPrefix("-"), !word.hasPrefix("--") else { return nil }
    var split: [String] = []
    var letters = word.dropFirst()
    while let letter = letters.first {
      letters = letters.dropFirst()
      guard let spec = specs.first(where: { $0.short == "-\(letter)" }) else { return nil }
      split.append("-\(letter)")
      if spec.takesValue {
        if !letters.isEmpty { split.append(String(letters)) }
        return split
      }
    }
    return split
  }

  /// The option the user probably meant: a near spelling, or for an unknown `-v` the one long
  /// option starting with that letter (`--version`).
  public static func suggestOption(for word: String, specs: [OptionSpec]) -> String? {
    // Every one-letter option is one edit from every other, so spelling says nothing there.
    guard word.count == 2, !word.hasPrefix("--") else {
      return Spelling.closest(to: word, in: specs.map(\.name))
    }
    let long = specs.map(\.name).filter { $0.hasPrefix("-" + word) }
    if long.count == 1 { return long[0] }
    // `-v` is most often meant for the version.
    return word == "-v" && long.contains(OptionName.version.text) ? OptionName.version.text : nil
  }
}
