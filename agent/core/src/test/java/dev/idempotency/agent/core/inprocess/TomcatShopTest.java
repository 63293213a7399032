package dev.idempotency.agent.core.inprocess;

/** The scenarios on embedded Tomcat 10.1, jakarta.servlet. */
class TomcatShopTest extends ShopScenarios {
    @Override
    RunningShop startShop() throws Exception {
        return TomcatShop.start();
    }
}
