/**
 * The basalt command line (picocli); entry point {@link dev.basalt.cli.Basalt}.
 */
package dev.basalt.cli;
