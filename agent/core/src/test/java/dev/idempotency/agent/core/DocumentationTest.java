package dev.idempotency.agent.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The repository's documentation stays readable and whole: the README short (what it is, the demo, install, a minimal
 * configuration, what a client gets, links), no line of prose over 200 characters, and every relative link of every
 * Markdown file pointing at a file that exists and, with an anchor, at a heading of that file.
 */
class DocumentationTest {
    private static final int README_MAX_LINES = 200;
    private static final int PROSE_MAX_CHARS = 200;
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

    private static List<Path> markdownFiles(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.toString().endsWith(".md"))
                    .filter(f -> {
                        String rel = root.relativize(f).toString().replace('\\', '/');
                        return !rel.startsWith(".") && !rel.contains("/target/") && !rel.startsWith("target/")
                                && !rel.contains("node_modules/") && !rel.contains("/.");
                    })
                    .sorted().collect(Collectors.toList());
        }
    }

    @Test
    void theReadmeIsShort() throws IOException {
        List<String> lines = Files.readAllLines(RepositoryRoot.path().resolve("README.md"), StandardCharsets.UTF_8);
        assertTrue(lines.size() <= README_MAX_LINES, "README.md has " + lines.size() + " lines; at most " + README_MAX_LINES
                + " (the rest belongs in docs/)");
    }

    @Test
    void noLineOfProseIsLongerThan200Characters() throws IOException {
        Path root = RepositoryRoot.path();
        List<String> tooLong = new ArrayList<>();
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        for (Path page : pages) {
            boolean code = false;
            List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.startsWith("```")) code = !code;
                if (code || line.startsWith("|") || line.length() <= PROSE_MAX_CHARS) continue;
                tooLong.add(root.relativize(page) + ":" + (i + 1) + " (" + line.length() + " characters)");
            }
        }
        assertEquals(new ArrayList<String>(), tooLong, "lines of prose over " + PROSE_MAX_CHARS + " characters");
    }

    @Test
    void everyRelativeLinkLeadsSomewhere() throws IOException {
        Path root = RepositoryRoot.path();
        List<String> broken = new ArrayList<>();
        List<Path> files = markdownFiles(root);
        assertTrue(files.contains(root.resolve("README.md")) && files.size() > 5, "found " + files);
        for (Path file : files) {
            String text = withoutCode(new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) continue; // http:, https:, mailto:, urn:
                int hash = target.indexOf('#');
                String path = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path dest = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                String where = root.relativize(file) + ": (" + target + ")";
                if (!Files.exists(dest)) {
                    broken.add(where + " names no file");
                } else if (anchor != null && dest.toString().endsWith(".md") && !anchorsOf(dest).contains(anchor)) {
                    broken.add(where + " names no heading of " + root.relativize(dest));
                }
            }
        }
        assertEquals(new ArrayList<String>(), broken, "broken links");
    }

    /** Links inside code blocks and code spans are text, not links. */
    private static String withoutCode(String text) {
        return text.replaceAll("(?s)```.*?```", "").replaceAll("`[^`\\n]*`", "");
    }

    /** GitHub's anchors: each heading lower-cased, punctuation dropped, spaces made hyphens; repeats numbered. */
    static Set<String> anchorsOf(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        boolean code = false;
        for (String line : Files.readAllLines(markdown, StandardCharsets.UTF_8)) {
            if (line.startsWith("```")) code = !code;
            if (code || !line.startsWith("#")) continue;
            String heading = line.replaceFirst("^#+\\s*", "");
            String slug = heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
            String unique = slug;
            for (int n = 1; !anchors.add(unique); n++) unique = slug + "-" + n;
        }
        return anchors;
    }
}
