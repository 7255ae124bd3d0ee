package dev.basalt.decoder;

/** The classic hazard kinds. */
public enum DependencyKind {
    /** Read after write: a true data dependency (the consumer needs the producer's result). */
    RAW,
    /** Write after read: the consumer overwrites what the producer read (removed by renaming for registers). */
    WAR,
    /** Write after write: both write the resource (removed by renaming for registers). */
    WAW
}
