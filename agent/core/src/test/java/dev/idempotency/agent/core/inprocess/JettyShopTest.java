package dev.idempotency.agent.core.inprocess;

/** The scenarios on embedded Jetty 9.4, javax.servlet. */
class JettyShopTest extends ShopScenarios {
    @Override
    RunningShop startShop() throws Exception {
        return JettyShop.start();
    }
}
