/// A call the client refuses before sending anything.
public struct ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    private enum Code: Sendable {
        case notSignedIn
        case invalidArgument
        case refreshLimitReached
        case accountChanged
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

    /// An argument the server would refuse anyway (an empty token, say).
    public static func invalidArgument(_ message: String) -> ClientError { ClientError(.invalidArgument, message) }

    public static func == (lhs: ClientError, rhs: ClientError) -> Bool { lhs.code == rhs.code }

    public var description: String { message }
}
