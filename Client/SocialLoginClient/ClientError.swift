/// A call the client refuses before sending anything.
public struct ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable {
        case notSignedIn
        case invalidArgument
        case refreshLimitReached
        case accountChanged
        case reauthenticationRequired
        case redirectRefused
    }

    private let code: Code
    /// What is wrong.
    public let message: String

    private init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The call needs a signed-in user and there is none (never signed in, signed out, or the session ended).
    public static let notSignedIn = ClientError(.notSignedIn, "No user is signed in.")

    /// More refreshes were needed than `AuthClientConfiguration.refreshLimit` allows: none was sent, and
    /// the user stays signed in. An API answering 401 to fresh tokens causes this; try later.
    public static let refreshLimitReached = ClientError(.refreshLimitReached, "Too many token refreshes in a short time; none was sent.")

    /// Another process sharing the token store signed in as another member; this client now follows that
    /// member (`authStates()` says so), and the request made for the member before was not sent again.
    public static let accountChanged = ClientError(.accountChanged, "Another member signed in meanwhile; the request was not sent again.")

    /// The change (linking, unlinking, deleting the account) needs a fresh sign-in: the session signed in
    /// with its provider longer ago than the server allows (its `REAUTHENTICATION_REQUIRED`, RFC 9470). Sign
    /// in with the provider again (`login(with:)`, any identity the member has linked), then retry; nothing
    /// changed, and the user stays signed in.
    public static let reauthenticationRequired = ClientError(
        .reauthenticationRequired, "This change needs a fresh sign-in: sign in with the provider again, then retry.")

    /// The server answered a call that carries a token (a login, a refresh, a link) with a redirect to
    /// another origin: it was not followed, so the token went nowhere else.
    public static let redirectRefused = ClientError(.redirectRefused, "The server redirected a call that carries a token to another origin; it was not followed.")

    /// An argument the server would refuse anyway (an empty token, say).
    public static func invalidArgument(_ message: String) -> ClientError { ClientError(.invalidArgument, message) }

    public static func == (lhs: ClientError, rhs: ClientError) -> Bool { lhs.code == rhs.code }

    public var description: String { message }
}
