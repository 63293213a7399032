package dev.idempotency.agent.core.cli;

import java.io.File;
import java.io.IOException;
import java.util.List;

/**
 * {@code version [--json]}: the agent's version, the commit it was built from and the components it bundles, read from
 * the jar's manifest and its CycloneDX SBOM; {@code --json} prints that SBOM as it is, for a scanner.
 */
final class VersionCommand {
    private final CliConsole console;
    private final File agentJar;

    VersionCommand(CliConsole console, File agentJar) {
        this.console = console;
        this.agentJar = agentJar;
    }

    int run(CliArguments arguments) {
        arguments.allowOnly("version", "json");
        arguments.expectPositional("version", 1);
        AgentBuild build;
        try {
            build = AgentBuild.of(agentJar);
        } catch (IOException e) {
            console.err.println("idempotency-agent: cannot read " + agentJar + ": " + e.getMessage());
            return OperatorCli.FAILED;
        }
        if (build.sbom == null) {
            if (!arguments.flag("json")) printBuild(build);
            console.err.println("idempotency-agent: this jar holds no SBOM (" + AgentBuild.SBOM_ENTRY
                    + "): it was built offline, where the CycloneDX plugin does not run");
            return OperatorCli.FAILED;
        }
        if (arguments.flag("json")) {
            console.out.write(build.sbom, 0, build.sbom.length);
            console.out.flush();
            return OperatorCli.OK;
        }
        List<AgentBuild.Component> components;
        try {
            components = build.components();
        } catch (IOException e) {
            console.err.println("idempotency-agent: cannot read the jar's SBOM (" + AgentBuild.SBOM_ENTRY + "): "
                    + e.getMessage());
            return OperatorCli.FAILED;
        }
        printBuild(build);
        console.out.println("bundled components (" + AgentBuild.SBOM_ENTRY + ", CycloneDX):");
        int width = 0;
        int versionWidth = 0;
        for (AgentBuild.Component c : components) {
            width = Math.max(width, c.coordinates().length());
            versionWidth = Math.max(versionWidth, c.version.length());
        }
        String row = "  %-" + width + "s  %-" + versionWidth + "s  %s";
        for (AgentBuild.Component c : components) {
            String licences = c.licences.isEmpty() ? "licence not declared" : String.join(", ", c.licences);
            console.out.println(String.format(row, c.coordinates(), c.version, licences));
        }
        return OperatorCli.OK;
    }

    private void printBuild(AgentBuild build) {
        console.out.println("idempotency-agent " + build.version);
        console.out.println("commit " + build.commit + commitNote(build));
    }

    private static String commitNote(AgentBuild build) {
        if (AgentBuild.UNKNOWN.equals(build.commit)) return " (not built from a git checkout)";
        if ("modified".equals(build.tree)) return " (built with uncommitted changes)";
        return "";
    }
}
