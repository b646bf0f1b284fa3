/**
 * Test fixtures that the tests of several Bolo modules share, on Java 17 and the JDK alone: {@link
 * dev.bolo.testkit.CuttingProxy}, {@link dev.bolo.testkit.MutableClock}, {@link
 * dev.bolo.testkit.FakeTicker}, {@link dev.bolo.testkit.Await}, and {@link
 * dev.bolo.testkit.CleanText}, the check every test of a client-visible message makes.
 */
@NullMarked
package dev.bolo.testkit;

import org.jspecify.annotations.NullMarked;
