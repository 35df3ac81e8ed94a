import Crypto
import Foundation
import Messaging

/// `nats-auth`: makes the NATS identities of the system and nats-server's authorization from the
/// one permission table (`BusIdentity`).
///
///     nats-auth seeds DIR    a seed file DIR/<identity>.nk (mode 0600) for each identity that has
///                            none; existing files are kept. Prints each identity's public key.
///     nats-auth config DIR   prints the `authorization` block for nats-server, from DIR/<identity>.nk
///                            or, where only the public key is at hand, DIR/<identity>.pub
///     nats-auth table        prints the permission table (Markdown), as the README shows it
///
/// For the test command only: `nats-auth seed FILE` makes one seed file, and
/// `nats-auth config DIR --test-user FILE` adds that key as a user allowed everything.
let usage = "usage: nats-auth seeds DIR | nats-auth config DIR | nats-auth table\n"

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("nats-auth: \(message)\n".utf8))
    exit(2)
}

func seedPath(_ directory: String, _ identity: BusIdentity) -> String { "\(directory)/\(identity.rawValue).nk" }

/// Writes a new seed to `path` unless a seed is there: created with mode 0600 from the start (never
/// readable by others, not even for a moment), written whole and synced in a file of its own, then
/// linked to `path` only if nothing is there (link never replaces). An empty file at `path` (what a
/// run killed between creating and writing it left, before seeds were written so) is no seed: it
/// is replaced. The file of its own has a random name (`mkstemp`): a name of the process ID would be
/// the same in every container (each nats-auth is pid 1 there), so a run killed before its unlink
/// would leave the name taken for every later run, and two containers on one volume would share it.
func makeSeed(_ path: String) {
    var status = stat()
    if stat(path, &status) == 0 {
        guard status.st_size == 0 else { return }
        unlink(path)
    }
    let key: NKey
    do { key = try NKey.generateUser() } catch { fail("cannot make a key: \(error)") }
    var template = Array("\(path).XXXXXX".utf8CString)
    let descriptor = mkstemp(&template)
    guard descriptor >= 0 else { fail("cannot create a file beside \(path): \(String(cString: strerror(errno)))") }
    let temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // exit() runs no defer: every way out unlinks the file of its own first.
    func failing(_ message: String) -> Never {
        unlink(temporary)
        fail(message)
    }
    let bytes = Array((key.seed + "\n").utf8)
    guard write(descriptor, bytes, bytes.count) == bytes.count, fsync(descriptor) == 0 else {
        close(descriptor)
        failing("cannot write \(temporary)")
    }
    close(descriptor)
    guard link(temporary, path) == 0 || errno == EEXIST else { failing("cannot create \(path): \(String(cString: strerror(errno)))") }
    unlink(temporary)
}

func seedPublicKey(_ path: String) -> String {
    guard let seed = try? String(contentsOfFile: path, encoding: .utf8), let key = try? NKey(seed: seed) else {
        fail("\(path) is not a user nkey seed")
    }
    return key.publicKey
}

/// The public key of `identity` from its seed file or its `.pub` file; nil when neither exists.
func publicKey(_ directory: String, _ identity: BusIdentity) -> String? {
    if FileManager.default.fileExists(atPath: seedPath(directory, identity)) {
        return seedPublicKey(seedPath(directory, identity))
    }
    let pubPath = "\(directory)/\(identity.rawValue).pub"
    guard let text = try? String(contentsOfFile: pubPath, encoding: .utf8) else { return nil }
    let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
    guard key.count == 56, key.hasPrefix("U"), key.allSatisfy({ $0.isUppercase || $0.isNumber }) else {
        fail("\(pubPath) is not a user nkey public key (U…)")
    }
    return key
}

let arguments = CommandLine.arguments.dropFirst()
switch (arguments.first, arguments.count) {
case ("seeds", 2):
    let directory = arguments.last!
    do {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
    } catch { fail("cannot create \(directory): \(error.localizedDescription)") }
    for identity in BusIdentity.allCases {
        makeSeed(seedPath(directory, identity))
        print("\(identity.rawValue) \(publicKey(directory, identity)!)")
    }
case ("seed", 2):
    makeSeed(arguments.last!)
case ("config", let count) where count == 2 || (count == 4 && arguments.dropFirst(2).first == "--test-user"):
    let directory = Array(arguments)[1]
    var keys: [BusIdentity: String] = [:]
    for identity in BusIdentity.allCases { keys[identity] = publicKey(directory, identity) }
    guard !keys.isEmpty else { fail("no <identity>.nk or <identity>.pub in \(directory)") }
    let testUsers = arguments.count == 4
        ? [BusAuthorization.Unrestricted(publicKey: seedPublicKey(arguments.last!), name: "tests")] : []
    print(BusAuthorization.serverConfiguration(publicKeys: keys, unrestricted: testUsers), terminator: "")
case ("table", 1):
    print(BusAuthorization.markdownTable(), terminator: "")
default:
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}
