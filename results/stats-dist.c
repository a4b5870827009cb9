/*
 * The distributions the tests need (stats-dist.h): normal, Student's t,
 * incomplete beta and gamma, chi-square.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats-dist.h"

#define SQRT2		1.41421356237309504880
#define SQRT_2PI	2.50662827463100050242

/* ---- distributions ---- */

double stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / SQRT2);
}

/*
 * Acklam's rational approximation (relative error 1.15e-9) refined by
 * one Halley step on erfc, which brings it to full double precision.
 * Only the lower half is computed: 1 - p is exact for p >= 0.5, and the
 * lower tail keeps erfc's relative accuracy.
 */
static double norm_quantile_lower(double p)
{
	static const double a[] = {
		-3.969683028665376e+01, 2.209460984245205e+02,
		-2.759285104469687e+02, 1.383577518672690e+02,
		-3.066479806614716e+01, 2.506628277459239e+00,
	};
	static const double b[] = {
		-5.447609879822406e+01, 1.615858368580409e+02,
		-1.556989798598866e+02, 6.680131188771972e+01,
		-1.328068155288572e+01,
	};
	static const double c[] = {
		-7.784894002430293e-03, -3.223964580411365e-01,
		-2.400758277161838e+00, -2.549732539343734e+00,
		4.374664141464968e+00, 2.938163982698783e+00,
	};
	static const double d[] = {
		7.784695709041462e-03, 3.224671290700398e-01,
		2.445134137142996e+00, 3.754408661907416e+00,
	};
	double q, r, x, e, u;

	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	e = 0.5 * erfc(-x / SQRT2) - p;
	u = e * SQRT_2PI * exp(x * x / 2);
	/* below about 1e-300, exp() overflows and the first guess must do */
	return isfinite(u) ? x - u / (1 + x * u / 2) : x;
}

double stats_norm_quantile(double p)
{
	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p > 0.5)
		return -norm_quantile_lower(1 - p);
	return norm_quantile_lower(p);
}

/* One step of Lentz's method: the term aa into d and c; what it multiplies h by. */
static double lentz_step(double aa, double *d, double *c)
{
	const double tiny = 1e-300;

	*d = 1 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1 / *d;
	return *d * *c;
}

/*
 * Continued fraction for the incomplete beta function, evaluated by the
 * modified Lentz method (Numerical Recipes, 2nd ed., 6.4): each m takes
 * an even term and an odd one.
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h, del;
	int m;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		int m2 = 2 * m;

		h *= lentz_step(m * (b - m) * x / ((qam + m2) * (a + m2)), &d, &c);
		del = lentz_step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &d, &c);
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* I_x(a, b) with y = 1 - x passed separately so that x near 1 keeps precision. */
static double beta_inc2(double a, double b, double x, double y)
{
	double front;

	if (!(a > 0) || !(b > 0) || isnan(x) || isnan(y))
		return NAN;
	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(y));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, y) / b;
}

double stats_beta_inc(double a, double b, double x)
{
	if (x < 0 || x > 1)
		return NAN;
	return beta_inc2(a, b, x, 1 - x);
}

/*
 * The regularised upper incomplete gamma function Q(a, x): the series for
 * P below a + 1, the continued fraction (modified Lentz) above it.
 */
static double gamma_q(double a, double x)
{
	double front, sum, term, b, c, d, h;
	int n;

	if (x <= 0)
		return 1;
	front = exp(-x + a * log(x) - lgamma(a));
	if (x < a + 1) {
		sum = term = 1 / a;
		for (n = 1; n < 1000 && fabs(term) > fabs(sum) * 1e-16; n++) {
			term *= x / (a + n);
			sum += term;
		}
		return fmax(0, 1 - sum * front);
	}
	b = x + 1 - a;
	c = 1 / DBL_MIN;
	d = 1 / b;
	h = d;
	for (n = 1; n < 1000; n++) {
		double an = -n * (n - a), delta;
		b += 2;
		d = an * d + b;
		if (fabs(d) < DBL_MIN)
			d = DBL_MIN;
		c = b + an / c;
		if (fabs(c) < DBL_MIN)
			c = DBL_MIN;
		d = 1 / d;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < 1e-16)
			break;
	}
	return front * h;
}

double stats_chi2_sf(double x, double df)
{
	if (isnan(x) || !(df > 0))
		return NAN;
	return gamma_q(df / 2, x / 2);
}

/* P(T > |t|) = I_{df/(df+t^2)}(df/2, 1/2) / 2 */
double stats_t_tail(double t, double df)
{
	double t2 = t * t;

	if (isinf(t))
		return 0;
	return 0.5 * beta_inc2(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
}

double stats_t_sf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	return t >= 0 ? stats_t_tail(t, df) : 1 - stats_t_tail(t, df);
}

double stats_t_cdf(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	return t >= 0 ? 1 - stats_t_tail(t, df) : stats_t_tail(t, df);
}
/* ---- Student's t quantile ---- */

double stats_t_quantile(double p, double df)
{
	double lo = -1, hi = 1;
	int it;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	while (stats_t_cdf(lo, df) > p)
		lo *= 2;
	while (stats_t_cdf(hi, df) < p)
		hi *= 2;
	for (it = 0; it < 200 && hi - lo > 1e-12 * fmax(1, fabs(hi)); it++) {
		double mid = (lo + hi) / 2;

		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
