import Testing

@Test func placeholderNATSTests() { #expect(Bool(true)) }
