package dev.basalt.measure;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The native harness ({@code src/main/c/basalt-harness.c}) as a child process: the only place Basalt executes
 * code. One {@code Harness} is one child pinned to one CPU; a request that kills the child (a fault the page
 * mapping cannot fix, an illegal instruction, a run past its time) is answered with a {@link Failure} and the next
 * request starts a new child.
 *
 * <p>Why a C program and not a child JVM with JNA: the page-mapping SIGSEGV handler must run on an alternate stack
 * while the block owns every register, rsp included — a JVM installs its own SIGSEGV handler (for null checks and
 * safepoints) and would take those faults for its own; and a small static C program starts in a millisecond, so a
 * crash costs little. The build compiles it with the system compiler into the jar's classes; {@link #executable()}
 * copies it out of the jar once (by content hash).
 *
 * <p>Protocol (little-endian, on the child's standard input and output; version 2): a request is thirteen 32-bit
 * words — magic {@code BMRQ}, operation (1 info, 2 measure, 3 quit), block length, the two unrolls, the two
 * calibration unrolls, rounds, page limit, CPU-time limit in seconds, target ticks, most repetitions, calibration
 * chain length — then the block's bytes and the calibration chain's ({@link ClockChain}). A response is eight
 * words — magic {@code BMRS}, status (0 ok, 1 the block failed, 2 bad request), pages touched, rounds kept, rounds
 * rejected, block and calibration repetitions, message length — the message, then four 64-bit tick counts per kept
 * round: calibration at the small unroll, block at the small unroll, calibration and block at the large one.
 */
final class Harness implements AutoCloseable {

    private static final int REQUEST_MAGIC = 0x51524d42;
    private static final int RESPONSE_MAGIC = 0x53524d42;
    private static final int OP_INFO = 1;
    private static final int OP_MEASURE = 2;
    private static final int OP_QUIT = 3;
    private static final String RESOURCE = "basalt-harness";

    /** What one measure request asks for. */
    record Request(byte[] code, int unrollSmall, int unrollLarge, byte[] clock, int calibrationSmall,
                   int calibrationLarge, int rounds, int maxPages, int cpuSeconds, long targetTicks,
                   int maxRepetitions) {

        /** The request of an operation that measures nothing (info, quit). */
        static Request empty() {
            return new Request(new byte[0], 0, 0, new byte[0], 0, 0, 0, 0, 0, 0, 0);
        }
    }

    /** A reply: a run's raw timings, or why the block could not run. */
    sealed interface Reply permits Run, Failure {
    }

    /**
     * Raw timings of one request.
     *
     * @param ticks four per kept round: calibration small, block small, calibration large, block large
     */
    record Run(int pages, int kept, int rejected, long blockRepetitions, long calibrationRepetitions, long[] ticks)
            implements Reply {
    }

    /** Why the block did not run, in words; {@code childDied} when the child had to be restarted. */
    record Failure(String reason, boolean childDied) implements Reply {
    }

    private final Path executable;
    private final int cpu;
    private final boolean seccomp;
    private final boolean tscOnly;
    private final ScheduledExecutorService watchdog;
    private Process process;
    private DataInputStream in;
    private OutputStream out;

    /**
     * @param cpu     the CPU the child is pinned to, or -1 for none
     * @param seccomp whether the child installs its system-call filter
     * @param tscOnly time with the time-stamp counter even where a core-cycle counter exists
     */
    Harness(Path executable, int cpu, boolean seccomp, boolean tscOnly) {
        this.executable = executable;
        this.cpu = cpu;
        this.seccomp = seccomp;
        this.tscOnly = tscOnly;
        this.watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "basalt-harness-watchdog");
            t.setDaemon(true);
            return t;
        });
    }

    /** The harness program, copied out of the jar into a cache folder named by its content's hash. */
    static synchronized Path executable() throws IOException {
        byte[] program;
        try (InputStream s = Harness.class.getResourceAsStream(RESOURCE)) {
            if (s == null) {
                throw new IOException("the measuring harness (" + RESOURCE + ") is not in this build: it is compiled "
                        + "by the measure module's build with the system C compiler (cc)");
            }
            program = s.readAllBytes();
        }
        String hash;
        try {
            hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(program)).substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Path dir = cacheFolder().resolve("harness-" + hash);
        Path target = dir.resolve(RESOURCE);
        if (Files.isExecutable(target) && Files.size(target) == program.length) {
            return target;
        }
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, RESOURCE, ".tmp");
        Files.write(tmp, program);
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rwx------"));
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return target;
    }

    private static Path cacheFolder() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        if (!Files.isWritable(base.getParent() == null ? base : base.getParent()) && !Files.isWritable(base)) {
            base = Path.of(System.getProperty("java.io.tmpdir"));
        }
        return base.resolve("basalt");
    }

    /** The child's key=value facts: protocol, timer, vector width, seccomp, CPUID leaves, XCR0. */
    Map<String, String> info() throws IOException {
        ensureStarted();
        writeRequest(OP_INFO, Request.empty());
        Reply reply = readReply(30);
        if (!(reply instanceof Run)) {
            throw new IOException("the measuring harness did not answer its info request: "
                    + ((Failure) reply).reason());
        }
        Map<String, String> facts = new LinkedHashMap<>();
        for (String line : lastMessage.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                facts.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return facts;
    }

    /** Runs one request; a block that kills the child gets a {@link Failure} and the child is gone. */
    Reply measure(Request request, int wallSeconds) throws IOException {
        ensureStarted();
        writeRequest(OP_MEASURE, request);
        return readReply(wallSeconds);
    }

    private String lastMessage = "";

    private void writeRequest(int op, Request r) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(52 + r.code().length + r.clock().length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(REQUEST_MAGIC).putInt(op).putInt(r.code().length).putInt(r.unrollSmall()).putInt(r.unrollLarge())
                .putInt(r.calibrationSmall()).putInt(r.calibrationLarge()).putInt(r.rounds()).putInt(r.maxPages())
                .putInt(r.cpuSeconds()).putInt((int) Math.min(Integer.MAX_VALUE, r.targetTicks()))
                .putInt(r.maxRepetitions()).putInt(r.clock().length).put(r.code()).put(r.clock());
        try {
            out.write(b.array());
            out.flush();
        } catch (IOException e) { // the child is gone (it died on the last request): start again
            stop();
            ensureStarted();
            out.write(b.array());
            out.flush();
        }
    }

    private Reply readReply(int wallSeconds) throws IOException {
        AtomicBoolean timedOut = new AtomicBoolean();
        Process p = process;
        ScheduledFuture<?> kill = watchdog.schedule(() -> {
            timedOut.set(true);
            p.destroyForcibly();
        }, wallSeconds, TimeUnit.SECONDS);
        try {
            byte[] head = new byte[32];
            in.readFully(head);
            ByteBuffer h = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
            int magic = h.getInt();
            int status = h.getInt();
            int pages = h.getInt();
            int kept = h.getInt();
            int rejected = h.getInt();
            long blockReps = Integer.toUnsignedLong(h.getInt());
            long calReps = Integer.toUnsignedLong(h.getInt());
            int messageLength = h.getInt();
            if (magic != RESPONSE_MAGIC || messageLength < 0 || messageLength > 1 << 16 || kept < 0 || kept > 100_000) {
                stop();
                return new Failure("the measuring harness answered garbage (a block corrupted its memory?)", true);
            }
            byte[] message = new byte[messageLength];
            in.readFully(message);
            lastMessage = new String(message, StandardCharsets.UTF_8);
            if (status != 0) {
                stop(); // a block error ends the child (its state may be damaged); a bad request too
                return new Failure(lastMessage, true);
            }
            byte[] raw = new byte[kept * 32];
            in.readFully(raw);
            long[] ticks = new long[kept * 4];
            ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(ticks);
            return new Run(pages, kept, rejected, blockReps, calReps, ticks);
        } catch (EOFException | java.io.InterruptedIOException e) {
            return new Failure(deathReason(timedOut.get(), wallSeconds), true);
        } finally {
            kill.cancel(false);
        }
    }

    /** Why the child ended without answering: its time limit, or the signal that ended it. */
    private String deathReason(boolean timedOut, int wallSeconds) {
        Process p = process;
        stop();
        if (timedOut) {
            return "ran past its time limit (" + wallSeconds + " s); the child was killed";
        }
        try {
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "the measuring child stopped answering and was killed";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        int code = p.exitValue();
        if (code > 128) {
            int signal = code - 128;
            return "the measuring child was killed by signal " + signal + switch (signal) {
                case 9 -> " (SIGKILL: its CPU-time or memory limit)";
                case 24 -> " (SIGXCPU: its CPU-time limit)";
                case 27 -> " (SIGPROF: the block ran past its CPU-time limit)";
                case 31 -> " (SIGSYS: a system call its seccomp filter does not allow)";
                case 11 -> " (SIGSEGV: a fault on the handler's own stack)";
                default -> "";
            };
        }
        return "the measuring child exited with status " + code + " without answering";
    }

    private void ensureStarted() throws IOException {
        if (process != null && process.isAlive()) {
            return;
        }
        stop();
        List<String> command = new java.util.ArrayList<>(List.of(executable.toString()));
        if (cpu >= 0) {
            command.addAll(List.of("--cpu", Integer.toString(cpu)));
        }
        if (!seccomp) {
            command.add("--no-seccomp");
        }
        if (tscOnly) {
            command.add("--timer=tsc");
        }
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        process = pb.start();
        in = new DataInputStream(process.getInputStream());
        out = process.getOutputStream();
    }

    private void stop() {
        if (process != null) {
            process.destroyForcibly();
            try {
                process.waitFor(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                process.getInputStream().close();
                process.getOutputStream().close();
            } catch (IOException ignored) {
                // the child is gone either way
            }
        }
        process = null;
    }

    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            try {
                writeRequest(OP_QUIT, Request.empty());
                process.waitFor(2, TimeUnit.SECONDS);
            } catch (IOException e) {
                // going anyway
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        stop();
        watchdog.shutdownNow();
    }
}
