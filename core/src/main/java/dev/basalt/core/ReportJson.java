package dev.basalt.core;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.JsonGeneratorDelegate;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * JSON as Basalt writes it for people and scripts: every number to at most six decimals, so that a sum of
 * attributions that is zero prints 0, not {@code 8.76e-17}, and a ratio prints {@code 0.001429}, not seventeen
 * digits of binary noise. Six decimals keep every figure Basalt reports (cycles to 1/10,000, shares, MAPEs) exact.
 */
public final class ReportJson {

    private ReportJson() {
    }

    private static final ObjectMapper MAPPER = new ObjectMapper(JsonFactory.builder()
            .addDecorator((factory, generator) -> new Rounding(generator)).build());

    /** A mapper whose every generator rounds (immutable once built: share it). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** {@code node} pretty-printed, its numbers rounded. */
    public static String pretty(JsonNode node) {
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A prediction's {@code source} as JSON: {@code {"estimator": "simulator"}} when the estimator asked answered,
     * else also {@code fallback_from}, {@code reason} and {@code unknown_forms} (the forms it was never trained on).
     */
    public static com.fasterxml.jackson.databind.node.ObjectNode source(Source s) {
        var n = MAPPER.createObjectNode();
        n.put("estimator", s.estimator());
        if (s.isFallback()) {
            n.put("fallback_from", s.fallbackFrom());
            n.put("reason", s.reason());
            var forms = n.putArray("unknown_forms");
            s.unknownForms().forEach(forms::add);
        }
        return n;
    }

    /** {@code v} to six decimals; -0 is 0; values too large to hold six decimals, NaN and infinities as they are. */
    public static double round(double v) {
        if (!Double.isFinite(v) || Math.abs(v) >= 1e9) {
            return v;
        }
        double r = Math.round(v * 1e6) / 1e6;
        return r == 0 ? 0.0 : r;
    }

    private static final class Rounding extends JsonGeneratorDelegate {

        Rounding(JsonGenerator d) {
            super(d, true);
        }

        @Override
        public void writeNumber(double v) throws IOException {
            super.writeNumber(round(v));
        }

        @Override
        public void writeNumber(float v) throws IOException {
            super.writeNumber(round(v));
        }
    }
}
