import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starting and stopping an nginx child process on a free loopback port, shared by `NginxOrigin` and
/// `NginxSliceProxy`, which differ only in their configuration.
enum NginxProcess {
    /// Starts nginx with the configuration `configure(port)` writes (returning its file), retrying with a new
    /// port if the chosen one was taken before nginx bound it; returns the child and its port once it accepts
    /// connections. Throws `NginxOrigin.Error.failedToStart` with the error log after five tries.
    static func launch(
        executable: URL, prefix: URL, errorLog: URL, configure: (Int) throws -> URL
    ) throws -> (child: Process, port: Int) {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw NginxOrigin.Error.notInstalled
        }
        var lastLog = ""
        for _ in 0..<5 {
            // Probe a free port by binding 0; nginx then binds it after we release it.
            let (fd, port) = try POSIXSocket.listenOnLoopback()
            POSIXSocket.closeDescriptor(fd)
            let file = try configure(port)
            let child = Process()
            child.executableURL = executable
            child.arguments = ["-p", prefix.path + "/", "-c", file.path, "-e", errorLog.path, "-g", "daemon off;"]
            child.standardOutput = FileHandle.nullDevice
            child.standardError = FileHandle.nullDevice
            try child.run()
            if waitUntilAccepting(child, port: port, timeout: 5) { return (child, port) }
            terminate(child)
            lastLog = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? "(no error log)"
        }
        try? FileManager.default.removeItem(at: prefix)
        throw NginxOrigin.Error.failedToStart(lastLog)
    }

    /// Terminates the child held in `process`, once.
    static func stop(_ process: Locked<Process?>) {
        let child = process.withLock { process -> Process? in
            defer { process = nil }
            return process
        }
        if let child { terminate(child) }
    }

    private static func waitUntilAccepting(_ child: Process, port: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard child.isRunning else { return false }
            // Someone else could own the port; only trust the connect if nginx is still alive.
            if POSIXSocket.canConnect(port: port) {
                Thread.sleep(forTimeInterval: 0.02)
                return child.isRunning
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    /// SIGTERM (nginx's fast shutdown), then SIGKILL if it lingers beyond ~5 s.
    private static func terminate(_ child: Process) {
        guard child.isRunning else { return }
        child.terminate()
        let deadline = Date().addingTimeInterval(5)
        while child.isRunning && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        if child.isRunning {
            kill(child.processIdentifier, SIGKILL)
        }
        child.waitUntilExit()
    }
}
