package dev.basalt.decoder;

/**
 * Instructions that CPUs recognise as independent of their inputs (Intel optimization manual, "dependency
 * breaking idioms"). The dependency graph gives them no reads.
 */
public enum Idiom {
    /** An ordinary instruction. */
    NONE,
    /** The result is zero whatever the input: {@code xor r,r}, {@code sub r,r}, {@code pxor x,x},
     * {@code vxorps x,y,y}, {@code psubd x,x}, {@code pcmpgtd x,x}. Needs no execution port on Sandy Bridge
     * and later for the GPR and xor-style vector forms. */
    ZERO,
    /** The result is all ones whatever the input: {@code pcmpeqd x,x}. Still executes, but waits for nothing. */
    ONES
}
