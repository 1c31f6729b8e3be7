import SusiOperatorLog
import Testing

/// The Prometheus text format: families with their help and type, labels escaped, histograms
/// with their `+Inf` bucket, sum and count.
@Suite struct PrometheusTextTests {
  @Test func writesFamiliesAndEscapedLabels() {
    var text = PrometheusText()
    text.family("hits_total", "counter", help: "Hits.")
    text.sample("hits_total", labels: ["path": "/a\"b\\c\nd", "code": "200"], 3)
    text.single("up", "gauge", help: "Up.", 1)
    #expect(
      text.text == """
        # HELP hits_total Hits.
        # TYPE hits_total counter
        hits_total{path="/a\\"b\\\\c\\nd",code="200"} 3
        # HELP up Up.
        # TYPE up gauge
        up 1

        """)
  }

  @Test func writesAHistogramWithItsInfiniteBucketSumAndCount() {
    var text = PrometheusText()
    text.histogram(
      "t_seconds", help: "T.", bounds: [0.1, 1], cumulative: [2, 5], sum: 1.5, count: 6)
    #expect(
      text.text == """
        # HELP t_seconds T.
        # TYPE t_seconds histogram
        t_seconds_bucket{le="0.1"} 2
        t_seconds_bucket{le="1.0"} 5
        t_seconds_bucket{le="+Inf"} 6
        t_seconds_sum 1.5
        t_seconds_count 6

        """)
  }
}
