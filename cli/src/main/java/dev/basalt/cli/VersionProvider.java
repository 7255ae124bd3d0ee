package dev.basalt.cli;

import picocli.CommandLine;

/** Reads the version the build wrote into the jar manifest. */
final class VersionProvider implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = Basalt.class.getPackage().getImplementationVersion();
        return new String[] {"basalt " + (v == null ? "(development build)" : v),
            "Java " + System.getProperty("java.version") + " on " + System.getProperty("os.name") + " "
                + System.getProperty("os.arch")};
    }
}
