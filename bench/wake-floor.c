// wake-floor: how late does this machine wake a thread sleeping until an absolute
// deadline? The floor under any pacer: docbench's default (nanosleep+spin) sleeps the
// same way, in clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) with 1 ns timer slack,
// then spins the last SPIN_NS.
//
// usage: wake-floor RATE SECONDS [SPIN_NS]
// prints the lag (how late each wait returned) p50/p99/max and the process's CPU.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

static long long now(void) {
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	long long x = *(const long long *)a, y = *(const long long *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
	if (argc < 3) {
		fprintf(stderr, "usage: wake-floor RATE SECONDS [SPIN_NS]\n");
		return 2;
	}
	long rate = atol(argv[1]);
	double secs = atof(argv[2]);
	long long spin = argc > 3 ? atoll(argv[3]) : 0;
	long n = (long)(rate * secs);
	if (rate <= 0 || n <= 0) {
		fprintf(stderr, "wake-floor: RATE and SECONDS must be positive\n");
		return 2;
	}
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	long long *lag = malloc(n * sizeof *lag), period = 1000000000LL / rate, t0 = now() + period;
	for (long i = 0; i < n; i++) {
		long long due = t0 + i * period, wake = due - spin, x;
		struct timespec ts = {wake / 1000000000LL, wake % 1000000000LL};
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		while ((x = now()) < due)
			;
		lag[i] = x - due;
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	qsort(lag, n, sizeof *lag, cmp);
	printf("rate %ld spin %lld ns n %ld: lag p50 %.1f µs p99 %.1f µs max %.1f µs; CPU %.1f %% of one core\n",
	       rate, spin, n, lag[n / 2] / 1e3, lag[n * 99 / 100] / 1e3, lag[n - 1] / 1e3, 100 * cpu / secs);
	return 0;
}
