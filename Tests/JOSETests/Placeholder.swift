import Testing

@Test func placeholderJOSETests() { #expect(Bool(true)) }
