extension Unicode.Scalar {
    /// Whether it is in Unicode's general category Cc (control): U+0000-U+001F and U+007F-U+009F, a fixed
    /// range (looking the category up cost 13% of the gateway's CPU per first login, for ID tokens).
    public var isControlCharacter: Bool {
        value < 0x20 || (0x7F...0x9F).contains(value)
    }
}
