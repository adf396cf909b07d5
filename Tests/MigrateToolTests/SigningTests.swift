import Foundation
import TestSupport
import XCTest

/// Signed migration directories: `keygen` writes an Ed25519 key pair,
/// `hash --sign` signs migrations.sum, and the commands that run
/// migrations refuse, with `--trusted-key`, a directory that a trusted key
/// did not sign (exit 4, the reason named) unless `--allow-unsigned`.
final class SigningTests: MigrateToolTestCase {
    private func permissions(_ file: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
    }

    private func keygen(_ name: String) throws -> (key: String, pub: String, id: String) {
        let made = try tool(["keygen", path(name), "--json"], umask: 0o022)
        XCTAssertEqual(made.status, 0, made.stderr)
        let report = try XCTUnwrap(try json(made.stdout) as? [String: String])
        return (path(name + ".key"), path(name + ".pub"), try XCTUnwrap(report["keyId"]))
    }

    /// A copy of the example migrations.
    private func release(_ name: String) throws -> String {
        let folder = path(name)
        try FileManager.default.copyItem(atPath: migrations, toPath: folder)
        try? FileManager.default.removeItem(atPath: folder + "/migrations.sum")
        try? FileManager.default.removeItem(atPath: folder + "/migrations.sum.sig")
        return folder
    }

    /// Keys and signatures that release 0.2 made (with swift-crypto's
    /// Ed25519, `Tests/Fixtures/signed-v0.2`) still verify, and the same key
    /// signs the same `migrations.sum` into the same bytes (Ed25519 is
    /// deterministic): OpenSSL's Ed25519 is the same algorithm, encodings
    /// and key ids.
    func testKeysAndSignaturesOfRelease02StillWork() throws {
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/signed-v0.2").path
        let verified = try tool(["test", "--migrations", fixture + "/migrations", "--trusted-key", fixture + "/fixture.pub"])
        XCTAssertEqual(verified.status, 0, verified.stderr)

        let folder = path("migrations")
        try FileManager.default.copyItem(atPath: fixture + "/migrations", toPath: folder)
        try FileManager.default.removeItem(atPath: folder + "/migrations.sum.sig")
        // Git keeps no modes: the private key is made private again.
        try FileManager.default.copyItem(atPath: fixture + "/fixture.key", toPath: path("fixture.key"))
        chmod(path("fixture.key"), 0o600)
        let signed = try tool(["hash", folder, "--sign", path("fixture.key")])
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertEqual(try String(contentsOfFile: folder + "/migrations.sum.sig", encoding: .utf8),
                       try String(contentsOfFile: fixture + "/migrations/migrations.sum.sig", encoding: .utf8))
    }

    func testKeygenWritesAPrivateKeyAndNeverReplacesOne() throws {
        let (key, pub, id) = try keygen("release")
        XCTAssertEqual(try permissions(key), 0o600, "the private key, under umask 022")
        XCTAssertEqual(try permissions(pub), 0o600)
        XCTAssertEqual(id.count, 16)
        let privateText = try String(contentsOfFile: key, encoding: .utf8)
        let secret = try XCTUnwrap(privateText.split(separator: "\n").first { $0.hasPrefix("private-key ed25519 ") }).split(separator: " ")[2]
        XCTAssertTrue(try String(contentsOfFile: pub, encoding: .utf8).contains("public-key ed25519 "))

        let text = try tool(["keygen", path("other")])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("\(path("other.key")): private key "), text.stdout)
        XCTAssertFalse(text.stdout.contains(String(secret)))

        let again = try tool(["keygen", path("release")])
        XCTAssertEqual(again.status, 73, again.stderr)
        XCTAssertTrue(again.stderr.contains("\(key) exists already"), again.stderr)
        XCTAssertEqual(try String(contentsOfFile: key, encoding: .utf8), privateText, "the key is unchanged")
        // Only the public key is left: nothing is written either.
        try FileManager.default.removeItem(atPath: key)
        XCTAssertEqual(try tool(["keygen", path("release")]).status, 73)
        XCTAssertFalse(FileManager.default.fileExists(atPath: key))
    }

    func testHostsApplyOnlyWhatATrustedKeySigned() throws {
        let keys = try makeDatabase()
        let ci = try keygen("ci"), other = try keygen("intruder")
        let folder = try release("release")
        let signed = try tool(["hash", folder, "--sign", ci.key])
        XCTAssertEqual(signed.status, 0, signed.stderr)
        XCTAssertTrue(signed.stdout.contains("\(folder)/migrations.sum.sig: signed by key \(ci.id)"), signed.stdout)
        let trusted = ["--trusted-key", ci.pub]

        // Signed by the trusted key: every command that runs migrations goes on.
        XCTAssertEqual(try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys] + trusted).status, 0)
        XCTAssertEqual(try tool(["test", "--migrations", folder] + trusted).status, 0)
        XCTAssertEqual(try tool(["rehearse", path("app.db"), "--migrations", folder, "--key-file", keys] + trusted).status, 0)
        XCTAssertEqual(try tool(["apply", path("app.db"), "--migrations", folder, "--key-file", keys, "--no-backup"] + trusted).status, 0)
        XCTAssertEqual(try tool(["rollback", path("app.db"), "--steps", "1", "--migrations", folder, "--key-file", keys, "--no-backup"] + trusted).status, 0)
        // A directory of keys, and several --trusted-key.
        let keyFolder = path("trusted")
        try FileManager.default.createDirectory(atPath: keyFolder, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: ci.pub, toPath: keyFolder + "/ci.pub")
        XCTAssertEqual(try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys, "--trusted-key", keyFolder]).status, 0)
        XCTAssertEqual(try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys,
                                 "--trusted-key", other.pub, "--trusted-key", ci.pub]).status, 0)

        let before = try sha256OfFile(path("app.db"))
        func refused(_ directory: String, _ reason: String, trust: [String] = trusted, line: UInt = #line) throws {
            let apply = try tool(["apply", path("app.db"), "--migrations", directory, "--key-file", keys, "--no-backup"] + trust)
            XCTAssertEqual(apply.status, 4, apply.stdout + apply.stderr, line: line)
            XCTAssertTrue(apply.stderr.contains(reason), apply.stderr, line: line)
            XCTAssertEqual(try sha256OfFile(path("app.db")), before, "nothing applied", line: line)
            for command in [["status", path("app.db"), "--key-file", keys], ["test"], ["rehearse", path("app.db"), "--key-file", keys],
                            ["rollback", path("app.db"), "--steps", "1", "--no-backup", "--key-file", keys]] {
                let run = try tool(command + ["--migrations", directory] + trust)
                XCTAssertEqual(run.status, 4, "\(command[0]): \(run.stderr)", line: line)
            }
        }

        // A migration edited and hashed again without a key: the stale
        // signature is removed, so the directory is unsigned.
        let edited = try release("edited")
        XCTAssertEqual(try tool(["hash", edited, "--sign", ci.key]).status, 0)
        try "CREATE TABLE backdoor (x);\n".write(toFile: edited + "/0003_Zalora-v3.up.sql", atomically: true, encoding: .utf8)
        let rehashed = try tool(["hash", edited])
        XCTAssertTrue(rehashed.stdout.contains("migrations.sum.sig: removed"), rehashed.stdout)
        try refused(edited, "\(edited) is not signed: it has no migrations.sum.sig")
        // Signed again by a key the host does not trust.
        XCTAssertEqual(try tool(["hash", edited, "--sign", other.key]).status, 0)
        try refused(edited, "\(edited) is signed by key \(other.id), which is not trusted (trusted: \(ci.id))")
        // The sum rewritten by hand under a trusted signature.
        let forged = try release("forged")
        XCTAssertEqual(try tool(["hash", forged, "--sign", ci.key]).status, 0)
        try "CREATE TABLE backdoor (x);\n".write(toFile: forged + "/0003_Zalora-v3.up.sql", atomically: true, encoding: .utf8)
        let sum = try String(contentsOfFile: forged + "/migrations.sum", encoding: .utf8)
        let signature = try String(contentsOfFile: forged + "/migrations.sum.sig", encoding: .utf8)
        XCTAssertEqual(try tool(["hash", forged]).status, 0)
        XCTAssertNotEqual(try String(contentsOfFile: forged + "/migrations.sum", encoding: .utf8), sum)
        try signature.write(toFile: forged + "/migrations.sum.sig", atomically: true, encoding: .utf8)
        try refused(forged, "the signature of key \(ci.id) does not match migrations.sum: it changed after it was signed")
        // No migrations.sum at all.
        try refused(try release("bare"), "is not signed: it has no migrations.sum")

        // --allow-unsigned: used, with the reason as a warning.
        let allowed = try tool(["status", path("app.db"), "--migrations", edited, "--key-file", keys, "--allow-unsigned"] + trusted)
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertFalse(allowed.stderr.contains("refused"), allowed.stderr)
        XCTAssertTrue(allowed.stderr.contains("warning: \(edited) is signed by key \(other.id), which is not trusted"), allowed.stderr)

        // Bad key arguments are configuration errors; --no-integrity contradicts --trusted-key.
        XCTAssertEqual(try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys, "--trusted-key", path("none.pub")]).status, 78)
        let privateAsPublic = try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys, "--trusted-key", ci.key])
        XCTAssertEqual(privateAsPublic.status, 78)
        XCTAssertTrue(privateAsPublic.stderr.contains("is a PRIVATE key"), privateAsPublic.stderr)
        XCTAssertEqual(try tool(["status", path("app.db"), "--migrations", folder, "--key-file", keys, "--no-integrity"] + trusted).status, 64)
        // Without --trusted-key nothing changes: the directory's integrity file is checked as before.
        XCTAssertEqual(try tool(["status", path("app.db"), "--migrations", try release("plain"), "--key-file", keys]).status, 0)
    }

    func testASigningKeyMustBePrivate() throws {
        let ci = try keygen("ci")
        let folder = try release("release")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: ci.key)
        let loose = try tool(["hash", folder, "--sign", ci.key])
        XCTAssertEqual(loose.status, 78, loose.stderr)
        XCTAssertTrue(loose.stderr.contains("readable by group or others (mode 644)"), loose.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/migrations.sum"), "a bad key changes nothing")
        let publicAsPrivate = try tool(["hash", folder, "--sign", ci.pub])
        XCTAssertEqual(publicAsPrivate.status, 78, publicAsPrivate.stderr)
        // Read as key files are: a FIFO is refused at once, never waited on.
        XCTAssertEqual(mkfifo(path("fifo.key"), 0o600), 0)
        let fifo = try tool(["hash", folder, "--sign", path("fifo.key")])
        XCTAssertEqual(fifo.status, 78, fifo.stderr)
        XCTAssertTrue(fifo.stderr.contains("signing key \(path("fifo.key")): not a regular file"), fifo.stderr)
    }
}
