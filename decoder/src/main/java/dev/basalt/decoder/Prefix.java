package dev.basalt.decoder;

/** Instruction prefixes that change what an instruction does (segment and size prefixes are not listed). */
public enum Prefix {
    /** {@code lock}: atomic read-modify-write. */
    LOCK,
    /** {@code rep} on string stores and moves. */
    REP,
    /** {@code repe}/{@code repz} on string compares. */
    REPE,
    /** {@code repne}/{@code repnz} on string compares. */
    REPNE,
    /** {@code xacquire} (HLE). */
    XACQUIRE,
    /** {@code xrelease} (HLE). */
    XRELEASE,
    /** {@code bnd} (MPX). */
    BND
}
