package calc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CalcTest {
    @Test
    void twice() {
        assertEquals(42, Calc.twice(21));
    }

    @Test
    void half() {
        assertEquals(21, Calc.half(42), "half of 42");
    }
}
