import { hostileInputMatrix } from './hostile-input';

// Part 3 of 3 of the hostile-input matrix (test/hostile-input.ts says what it sends and what must hold).
hostileInputMatrix(2, 3);
