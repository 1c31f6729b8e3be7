import SusiJSON
import Testing

/// `BytesFieldReader` reads an object's fields from its bytes as `FieldReader` reads them from
/// its tree, and refuses (throws) whatever it cannot be sure to read the same way.
@Suite struct BytesFieldReaderTests {
  /// Reads `text`, an object, with `body` through a bytes reader.
  static func readFields<T>(
    _ text: String, maximumDepth: Int = JSONParser.maximumDepth,
    unread: JSONReader.UnreadMembers = .refuse, _ body: (BytesFieldReader) throws -> T
  ) throws -> T {
    try Array(text.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw, maximumDepth: maximumDepth)
      var value: T?
      try reader.readFields(unread: unread) { value = try body($0) }
      try reader.finish()
      return value!
    }
  }

  /// Every member of `sample` read through every kind of read, as values to compare.
  static func readAll(_ r: some FieldReading) throws -> [JSON] {
    let inner = try r.object("o")
    let list = try r.objects("list")
    return [
      .string(try r.string("s")), .int(try r.int("i")), .int(try r.int("whole")),
      .double(try r.double("d")), .bool(try r.bool("b")), try r.value("n"),
      try r.optionalValue("n") ?? "absent", .array(try r.array("a")),
      .array(try r.strings("names").map(JSON.string)), try inner.value("inner"),
      .array(try list.map { try $0.value("k") }), .bool(r.has("s")), .bool(r.has("n")),
      .bool(r.has("missing")), .bool(r.contains("n")), .bool(r.contains("missing")),
      .string(try r.optionalString("missing") ?? "absent"),
      .double(try r.optionalDouble("big") ?? 0),
      .string(try r.optionalString("e") ?? ""), .int(try r.optionalInt("neg") ?? 0),
      .bool(try r.optionalBool("b") ?? false), .array(try r.optionalArray("empty") ?? []),
    ]
  }

  static let samples = [
    #"{"s":"text","i":4,"whole":4.0,"d":2.5,"b":true,"n":null,"a":[1,"x"],"names":["p","q"],"o":{"inner":{"deep":1}},"list":[{"k":"v"},{"k":5}],"big":1e300,"e":"caf\u00e9 \"q\"","neg":-12,"empty":[]}"#,
    """
     { "list" : [ { "k" : "v" } , {"k":5} ] , "o" : { "inner" : { "deep" : 1 } } ,
      "names":[ "p" , "q" ],"a":[1, "x"] , "n" : null , "b" : true , "d" : 2.5 ,
      "whole" : 4.0 , "i" : 4 , "s" : "text" , "big" : 1e300 , "e" : "café",
      "neg" : -12 , "empty" : [ ] }
    """,
  ]

  @Test(arguments: samples)
  func readsEveryKindOfFieldAsTheTreeReaderDoes(text: String) throws {
    let fromTree = try Self.readAll(try FieldReader(JSONParser.parse(text)))
    let fromBytes = try Self.readFields(text) { try Self.readAll($0) }
    #expect(fromBytes == fromTree)
  }

  @Test func readsEachMemberOfAnObjectInOrder() throws {
    let text = #"{"b":1,"a":"x","c":null}"#
    var members: [String] = []
    try Self.readFields(text) { r in
      try r.forEachMember { (key, value) throws(JSONShapeError) in members.append("\(key)=\(value)")
      }
    }
    var fromTree: [String] = []
    try FieldReader(JSONParser.parse(text)).forEachMember { (key, value) throws(JSONShapeError) in
      fromTree.append("\(key)=\(value)")
    }
    #expect(members == fromTree)
    #expect(members.count == 3)
  }

  @Test func countsTheMembersAsTheTreeReaderDoes() throws {
    let texts = [#"{"b":1,"a":"x","c":null}"#, "{}", #"{"o":{"p":1,"q":[2,3]}}"#]
    let fromBytes = try texts.map { text in
      try Self.readFields(text) { r in
        // Every member read: a bytes reader that leaves one unread throws.
        try r.forEachMember { (_, _) throws(JSONShapeError) in }
        return r.memberCount
      }
    }
    let fromTree = try texts.map { try FieldReader(JSONParser.parse($0)).memberCount }
    #expect(fromBytes == [3, 0, 1])
    #expect(fromTree == fromBytes)
  }

  @Test func movesPastTheObjectItRead() throws {
    try Array(#"[{"a":1} , 2]"#.utf8).withUnsafeBytes { raw in
      var reader = JSONReader(raw)
      try reader.enterArray()
      #expect(try reader.nextElement())
      var a = 0
      try reader.readFields { a = try $0.int("a") }
      #expect(a == 1)
      #expect(try reader.nextElement())
      #expect(try reader.int() == 2)
      #expect(try !reader.nextElement())
      try reader.finish()
    }
  }

  /// Objects it leaves to the tree: it throws `UnusualObject` for them whatever the body reads.
  @Test(arguments: [
    #"{"a":1,"a":2}"#, #"{"\u0061":1}"#, #"{"a\"b":1}"#, #"{"caf\#u{e9}":1}"#,
    #"{"a":1,"b":2}"#, #"{"a":1,}"#, #"{"a":1 "b":2}"#, #"{"a" 1}"#, #"{"a":1"#, #"{"a":"1}"#,
    #"{"a":1,"b":nul}"#, #"{"a":1,"b":nulll}"#, #"{"a":1,"b":[1,2}"#,
  ])
  func leavesObjectsItDoesNotReadToTheTree(text: String) {
    #expect(throws: JSONReader.UnusualObject.self) {
      try Self.readFields(text) { r in try r.int("a") }
    }
  }

  /// Members of nested objects and elements of arrays are located with the object, in one pass:
  /// one the rules leave unread still leaves the object to the tree.
  @Test(arguments: [
    #"{"a":{"k":1,"x":2}}"#, #"{"a":{"k":1,"x":{"y":[]}}}"#, #"{"a":[{"k":1},{"k":2,"x":3}]}"#,
  ])
  func leavesAnUnreadNestedMemberToTheTree(text: String) {
    #expect(throws: JSONReader.UnusualObject.self) {
      try Self.readFields(text) { r in
        if let one = try? r.object("a") { _ = try one.int("k") }
        for element in (try? r.objects("a")) ?? [] { _ = try element.int("k") }
      }
    }
  }

  /// Asked to check the members its rules leave unread (a reply read for a few of its fields),
  /// it reads an object whose other members the parser accepts, nested or not, escaped or not.
  @Test(arguments: [
    #"{"a":1,"b":2}"#, #"{"a":1,"b":{"k":"caf\u00e9","x":[-1.5e3,true,null,"\"q\""]}}"#,
    #"{"a":1,"b":[{"k":0},"caf\#u{e9}",-0]}"#, #"{"b":12345678901234567890,"a":1}"#,
  ])
  func checksTheMembersItLeavesUnreadWhenAskedTo(text: String) throws {
    #expect(try Self.readFields(text, unread: .check) { r in try r.int("a") } == 1)
    #expect(throws: JSONReader.UnusualObject.self) {
      try Self.readFields(text) { r in try r.int("a") }
    }
  }

  /// An unread member the parser refuses still leaves the object to the tree (which then says
  /// what is wrong).
  @Test(arguments: [
    #"{"a":1,"b":"\x"}"#, "{\"a\":1,\"b\":\"tab\there\"}", #"{"a":1,"b":"\ud800"}"#,
    #"{"a":1,"b":1x}"#, #"{"a":1,"b":01}"#, #"{"a":1,"b":[-]}"#, #"{"a":1,"b":{"c":1e400}}"#,
    #"{"a":1,"b":{"c":1,"c":2}}"#,
  ])
  func leavesAnUnreadMemberTheParserRefusesToTheTree(text: String) {
    #expect((try? JSONParser.parse(text)) == nil)
    #expect(throws: JSONReader.UnusualObject.self) {
      try Self.readFields(text, unread: .check) { r in try r.int("a") }
    }
  }

  @Test func readsObjectsWithManyMembers() throws {
    let members = (0..<1000).map { #"{"k":\#($0),"x":[{"y":"\#($0)"}]}"# }
    let text = #"{"list":["# + members.joined(separator: ",") + "]}"
    let read = try Self.readFields(text) { r in
      try r.objects("list").map { try $0.int("k") + Int($0.objects("x")[0].string("y"))! }
    }
    #expect(read == (0..<1000).map { $0 * 2 })
  }

  /// A member is found by its structure; its value is checked when it is read, and refused
  /// where the parser refuses it.
  @Test(arguments: [
    #"{"a":tru}"#, #"{"a":1x}"#, #"{"a":01}"#, #"{"a":"\x"}"#, "{\"a\":\"tab\there\"}",
    #"{"a":"\ud800"}"#, #"{"a":[1,}]}"#, #"{"a":{"b":1,}}"#, #"{"a":{"b":1,"b":2}}"#,
    #"{"a":[{"b":1}}]}"#, #"{"a":1e400}"#,
  ])
  func checksEachValueAsTheParserDoesWhenReadingIt(text: String) {
    #expect((try? JSONParser.parse(text)) == nil)
    #expect(throws: (any Error).self) { try Self.readFields(text) { r in try r.value("a") } }
    #expect(throws: (any Error).self) { try Self.readFields(text) { r in try r.int("a") } }
    #expect(throws: (any Error).self) { try Self.readFields(text) { r in try r.string("a") } }
    #expect(throws: (any Error).self) {
      try Self.readFields(text) { r in try r.object("a").int("b") }
    }
    #expect(throws: (any Error).self) {
      try Self.readFields(text) { r in try r.objects("a").map { try $0.int("b") } }
    }
  }

  @Test func refusesNestingDeeperThanItsReaderAllows() throws {
    let text = #"{"a":{"b":{"c":[1]}}}"#
    #expect(
      try Self.readFields(text, maximumDepth: 4) { try $0.object("a").object("b").array("c") } == [
        1
      ])
    #expect(throws: (any Error).self) {
      try Self.readFields(text, maximumDepth: 3) { try $0.object("a").object("b").array("c") }
    }
    #expect(throws: (any Error).self) {
      try Self.readFields(text, maximumDepth: 3) { try $0.object("a").value("b") }
    }
    #expect(throws: (any Error).self) {
      try Self.readFields(#"{"a":[{"b":1}]}"#, maximumDepth: 2) { try $0.objects("a").count }
    }
    #expect((try? JSONParser.parse(Array(text.utf8), maximumDepth: 3)) == nil)
  }

  @Test func failsAMissingOrMistypedFieldLikeTheTreeReader() {
    let text = #"{"s":"x","n":null,"i":1.5}"#
    for read in [
      { (r: BytesFieldReader) throws -> Any in try r.string("missing") },
      { try $0.string("n") }, { try $0.int("s") }, { try $0.int("i") }, { try $0.bool("s") },
      { try $0.object("s") }, { try $0.objects("s") }, { try $0.strings("s") },
    ] {
      #expect(throws: (any Error).self) {
        try Self.readFields(text) { r in
          // Every member read, so that only `read` can throw.
          _ = try r.optionalString("s")
          _ = try r.optionalValue("i")
          _ = r.has("n")
          return try read(r)
        }
      }
    }
  }
}
