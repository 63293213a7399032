package dev.idempotency.agent.core.effects;

import dev.idempotency.agent.core.instrument.effects.EffectTransformer;
import dev.idempotency.agent.bootstrap.bridge.EffectBridge;
import dev.idempotency.store.EffectMark;
import dev.idempotency.store.ExpiredLeasePolicy;
import dev.idempotency.store.Reservation;
import dev.idempotency.store.StoreSettings;
import dev.idempotency.store.jdbc.JdbcIdempotencyStore;
import dev.idempotency.woven.jms.BaseProducer;
import dev.idempotency.woven.jms.NotAProducer;
import dev.idempotency.woven.jms.QueueSender;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import javax.jms.Message;
import javax.jms.MessageProducer;
import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** JMS producers of any broker's client, found by their super types and hooked where they send. */
class JmsEffectsTest {
    private final EffectTransformer transformer = new EffectTransformer(true);
    private JdbcIdempotencyStore store;

    @BeforeEach
    void watch() {
        EffectWatch.install();
        store = JdbcIdempotencyStore.open(StoreSettings.builder().url("jdbc:h2:mem:jms-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")
                .expiredLeasePolicy(ExpiredLeasePolicy.TRANSACTION).build());
    }

    @AfterEach
    void unwatch() {
        RequestEffects.unwatchCurrentThread();
        EffectBridge.install(null);
        store.close();
    }

    @Test
    void aSendOfAKeyedRequestIsMarkedBeforeItLeaves() throws Exception {
        MessageProducer producer = woven();
        Reservation owned = store.reserve("t", "sends", "fp");
        RequestEffects effects = RequestEffects.watch(store, owned.token(), "idempotency_keys", "test request");
        producer.send((Message) null);
        producer.send(producer.getDestination(), null); // delegates to send(Message): one mark for the destination
        effects.close();
        assertEquals(2, sent(producer));
        List<EffectMark> marks = store.find("t", "sends").get().effects();
        assertEquals(1, marks.size(), marks.toString());
        assertEquals(EffectMark.Kind.EXTERNAL, marks.get(0).kind());
        assertEquals("JMS send to queue://payouts", marks.get(0).detail());
    }

    @Test
    void aSendThatCannotBeMarkedDoesNotLeave() throws Exception {
        MessageProducer producer = woven();
        Reservation owned = store.reserve("t", "lost", "fp");
        RequestEffects effects = RequestEffects.watch(store, owned.token(), "idempotency_keys", "test request");
        store.release(owned.token()); // the key moved on: this request no longer owns it
        javax.jms.JMSException refused = assertThrows(javax.jms.JMSException.class, () -> producer.send((Message) null));
        assertTrue(refused.getMessage().contains("no longer owns its idempotency key"), refused.getMessage());
        assertEquals(0, sent(producer), "nothing was sent");
        effects.close();
    }

    @Test
    void sendsOutsideAKeyedRequestAndClassesThatAreNoProducersAreLeftAlone() throws Exception {
        MessageProducer producer = woven();
        producer.send((Message) null);
        assertEquals(1, sent(producer));
        ClassLoader application = new ClassLoader(getClass().getClassLoader()) { };
        assertNull(transformer.transform(application, internal(NotAProducer.class), null, null, classFile(NotAProducer.class)));
    }

    private static int sent(MessageProducer producer) throws Exception {
        return producer.getClass().getField("sent").getInt(producer);
    }

    /** QueueSender and its base, woven as the transformer weaves them as they load. */
    private MessageProducer woven() throws Exception {
        ClassLoader test = getClass().getClassLoader();
        ClassLoader loader = new ClassLoader(test) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.startsWith(BaseProducer.class.getPackage().getName())) return super.loadClass(name, resolve);
                synchronized (getClassLoadingLock(name)) {
                    Class<?> loaded = findLoadedClass(name);
                    if (loaded != null) return loaded;
                    try {
                        Class<?> original = test.loadClass(name);
                        byte[] bytes = classFile(original);
                        byte[] woven = transformer.transform(this, internal(original), null, null, bytes); // as the loader defining it
                        if (name.equals(QueueSender.class.getName()) || name.equals(BaseProducer.class.getName())) {
                            assertNotNull(woven, name + " is a producer");
                        }
                        byte[] defined = woven != null ? woven : bytes;
                        return defineClass(name, defined, 0, defined.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
            }
        };
        return (MessageProducer) loader.loadClass(QueueSender.class.getName()).getConstructor().newInstance();
    }

    private static String internal(Class<?> type) {
        return type.getName().replace('.', '/');
    }

    private static byte[] classFile(Class<?> type) throws IOException {
        try (InputStream in = type.getClassLoader().getResourceAsStream(internal(type) + ".class")) {
            return in.readAllBytes();
        }
    }
}
