// Re-creates ProcedureKit's Tests/ProcedureKitNetworkTests/URLTests.swift (ProcedureKit 5.x): nothing of it is ported.
//
// Left out (a deliberate difference, listed in Networking.md's porting table):
// - test__url_is_expressible_by_string_literal (`let url: URL = "http://procedure.kit.run"`),
//   test__url_is_expressible_by_extended_grapheme_cluster_literal (`URL(extendedGraphemeClusterLiteral:)`) and
//   test__url_is_expressible_by_unicode_scalar_literal (`URL(unicodeScalarLiteral:)`): ProcedureKitNetwork made
//   `URL` `ExpressibleByStringLiteral`; PKNetwork adds no conformances to Foundation's types (a conformance in a
//   library is a conformance in every client), so none of the three compiles. What they check beyond the
//   conformance (`url.host == "procedure.kit.run"`) is Foundation's `URL(string:)`, not ours.
