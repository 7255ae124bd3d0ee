package dev.basalt.training;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The first unpacking of PyTorch's native library is announced, with its size and place; later ones are not. */
class DjlFirstUseTest {

    @Test
    void announcesOnlyTheFirstUnpacking(@TempDir Path cache) throws Exception {
        String notice = Djl.firstUseNotice(cache).orElseThrow();
        assertTrue(notice.contains("about 430 MB") && notice.contains(cache.resolve("pytorch").toString()), notice);
        Files.createDirectories(cache.resolve("pytorch").resolve("1.13.0-cpu-linux-x86_64"));
        assertTrue(Djl.firstUseNotice(cache).isPresent(), "another version does not count");
        Files.createDirectories(cache.resolve("pytorch").resolve(Djl.PYTORCH_VERSION + "-20250812-cpu-linux-x86_64"));
        assertEquals(java.util.Optional.empty(), Djl.firstUseNotice(cache));
    }
}
