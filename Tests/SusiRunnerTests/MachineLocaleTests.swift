import Foundation
import Testing

@testable import SusiRunner

/// The machine's language, read from the locale environment as POSIX tools do.
@Suite struct MachineLocaleTests {
  @Test(
    arguments: [
      ("de_DE.UTF-8", "de"), ("fr_FR@euro", "fr"), ("pt-BR", "pt"), ("ja", "ja"), ("C", nil),
      ("POSIX", nil),
      ("C.UTF-8", nil), ("12_34", nil), ("", nil),
    ] as [(String, String?)])
  func aLocaleNamesItsLanguage(locale: String, language: String?) {
    #expect(MachineLocale.language(fromLocale: locale) == language)
  }

  @Test func lcAllWinsOverLang() {
    #expect(
      MachineLocale.language(environment: ["LANG": "de_DE.UTF-8", "LC_ALL": "es_ES.UTF-8"]) == "es")
    #expect(MachineLocale.language(environment: ["LANG": "de_DE.UTF-8", "LC_ALL": ""]) == "de")
    #expect(MachineLocale.language(environment: ["LANG": "C"]) == "en")
    #expect(MachineLocale.language(environment: [:]) == "en")
  }

}
