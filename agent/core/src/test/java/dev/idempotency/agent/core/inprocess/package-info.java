/**
 * The in-process tier: the agent's real transformer installed into the test JVM, embedded Tomcat 10.1 (jakarta),
 * Jetty 9.4 (javax) and Jersey 2 serving small test applications, and the core promises asked over loopback HTTP.
 *
 * <p>Each weaving mode needs a JVM of its own (the bridge is static): the surefire executions
 * {@code inprocess-startup} and {@code inprocess-attach} of this module set {@value InProcessAgent#WEAVING_PROPERTY}
 * and run only the tests tagged {@value InProcessAgent#TAG}; the default execution leaves them out. They take their
 * tests from the property {@code inprocess.tests}, not from {@code -Dtest}. {@link InstallAgentFirst} installs the
 * agent when JUnit's launcher opens, before any server or servlet class is loaded.
 *
 * <p>The agent ignores classes of its own packages ({@code dev.idempotency.agent.*}), so the test servlets here are
 * protected where production servlets are too, through {@code HttpServlet.service}; the filters that read the request
 * first are real ones of Spring and Tomcat, which the agent weaves.
 */
package dev.idempotency.agent.core.inprocess;
