import SusiPostgres
import SusiTesting
import Testing

/// The connection's pipelines with prepared statements, on a real PostgreSQL.
@Suite(
  .enabled(
    if: PostgresCluster.program.testsShouldRun,
    Comment(rawValue: PostgresCluster.program.skipNote)))
struct PostgresConnectionTests {
  func connect() throws -> PostgresConnection {
    let cluster = try PostgresCluster.shared()
    return try PostgresConnection(try PostgresURI(cluster.uri(try cluster.database())))
  }

  /// The statements prepared on `connection`, as the server lists them.
  func prepared(on connection: PostgresConnection) throws -> [String] {
    let listed = try connection.execute("SELECT statement FROM pg_prepared_statements")
    return (0..<listed.count).compactMap { listed.text($0, 0) }
  }

  @Test func aPreparedStatementIsPreparedOnceAndRunsWithEachCallsParameters() throws {
    let connection = try connect()
    defer { connection.close() }
    let double = "SELECT $1::bigint * 2, $2::bytea"
    for value in [1, 21, -4] {
      let results = try connection.executePipeline([
        PostgresStatement("BEGIN"),
        PostgresStatement(
          double, [.int(value), .bytes([0, 10, 255])], prepared: true, binaryResult: true),
        PostgresStatement(double, [.int(value + 1), .bytes([])], prepared: true),
        PostgresStatement("COMMIT"),
      ])
      #expect(results.count == 4)
      #expect(results[1].int(0, 0) == value * 2)
      #expect(results[1].bytes(0, 1) == [0, 10, 255])
      #expect(results[2].text(0, 0) == String((value + 1) * 2))
      #expect(results[2].text(0, 1) == "\\x")
    }
    #expect(try prepared(on: connection) == [double])
  }

  @Test func aStatementThatCannotBePreparedFailsItsPipelineAndIsNotKept() throws {
    let connection = try connect()
    defer { connection.close() }
    let broken = "SELECT * FROM no_such_table WHERE id = $1"
    for _ in 0..<2 {
      // The same error both times: the failed statement was not remembered as prepared.
      #expect {
        try connection.executePipeline([
          PostgresStatement("SELECT 1"), PostgresStatement(broken, [.int(1)], prepared: true),
        ])
      } throws: { error in
        "\(error)".contains("no_such_table")
      }
    }
    #expect(try prepared(on: connection).isEmpty)
    // The connection goes on.
    let fine = try connection.executePipeline([
      PostgresStatement("SELECT $1::int + 1", [.int(1)], prepared: true)
    ])
    #expect(fine.first?.text(0, 0) == "2")
  }

  @Test func aPreparedStatementOutlivesATransactionThatRolledBack() throws {
    let connection = try connect()
    defer { connection.close() }
    let select = "SELECT $1::text"
    #expect(throws: PostgresError.self) {
      try connection.executePipeline([
        PostgresStatement("BEGIN"), PostgresStatement(select, [.text("a")], prepared: true),
        PostgresStatement("SELECT 1/0"), PostgresStatement("COMMIT"),
      ])
    }
    try connection.execute("ROLLBACK")
    let again = try connection.executePipeline([
      PostgresStatement(select, [.text("b")], prepared: true)
    ])
    #expect(again.first?.text(0, 0) == "b")
    #expect(try prepared(on: connection) == [select])
  }
}
