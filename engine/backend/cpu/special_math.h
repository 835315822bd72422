#pragma once
// Scalar special functions in double for the CPU kernels of ops/special.h (float16/bfloat16/float32
// compute in double and round once): the modified Bessel functions i0/i1 (and their exponentially
// scaled forms), erfcx, ndtri, log_ndtr, the regularized incomplete gamma functions and the
// Hurwitz zeta function. The algorithms and constants are the Cephes Math Library's (3-clause BSD),
// as SciPy and PyTorch use them; the incomplete gamma follows SciPy's igam (DLMF 8.7.3, 8.9.2, 8.11.4,
// with the Lanczos form of x^a e^-x / Gamma(a) from Boost) without its uniform asymptotic expansion
// for a ~ x > 20: the series and the continued fraction still converge there, in more steps.
#include <cmath>
#include <limits>

namespace lucid::cpu::sm {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMachEp = 1.11022302462515654042e-16;

// Chebyshev series sum_i c_i T_i(x / 2) (Cephes chbevl).
template <int N>
inline double chbevl(double x, const double (&c)[N]) {
  double b0 = c[0], b1 = 0.0, b2 = 0.0;
  for (int i = 1; i < N; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = x * b1 - b2 + c[i];
  }
  return 0.5 * (b0 - b2);
}

// exp(-|x|) I0(x) on [0, 8] (in x / 2 - 2) and above 8 (in 32 / x - 2, times sqrt(x)).
inline constexpr double kI0A[] = {
    -4.41534164647933937950E-18, 3.33079451882223809783E-17, -2.43127984654795469359E-16, 1.71539128555513303061E-15,
    -1.16853328779934516808E-14, 7.67618549860493561688E-14, -4.85644678311192946090E-13, 2.95505266312963983461E-12,
    -1.72682629144155570723E-11, 9.67580903537323691224E-11, -5.18979560163526290666E-10, 2.65982372468238665035E-9,
    -1.30002500998624804212E-8, 6.04699502254191894932E-8, -2.67079385394061173391E-7, 1.11738753912010371815E-6,
    -4.41673835845875056359E-6, 1.64484480707288970893E-5, -5.75419501008210370398E-5, 1.88502885095841655729E-4,
    -5.76375574538582365885E-4, 1.63947561694133579842E-3, -4.32430999505057594430E-3, 1.05464603945949983183E-2,
    -2.37374148058994688156E-2, 4.93052842396707084878E-2, -9.49010970480476444210E-2, 1.71620901522208775349E-1,
    -3.04682672343198398683E-1, 6.76795274409476084995E-1,
};
inline constexpr double kI0B[] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18, 4.46562142029675999901E-17, 3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16, 1.77256013305652638360E-15, 3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14, 1.54008621752140982691E-14, 3.85277838274214270114E-13,
    7.18012445138366623367E-13, -1.79417853150680611778E-12, -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11, 4.94060238822496958910E-10, 3.39623202570838634515E-9, 2.26666899049817806459E-8,
    2.04891858946906374183E-7, 2.89137052083475648297E-6, 6.88975834691682398426E-5, 3.36911647825569408990E-3,
    8.04490411014108831608E-1,
};
// exp(-|x|) I1(x) / x on [0, 8] and exp(-|x|) I1(x) sqrt(x) above 8.
inline constexpr double kI1A[] = {
    2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16, -1.10559694773538630805E-15,
    7.60068429473540693410E-15, -5.04218550472791168711E-14, 3.22379336594557470981E-13, -1.98397439776494371520E-12,
    1.17361862988909016308E-11, -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
    9.38153738649577178388E-9, -4.44505912879632808065E-8, 2.00329475355213526229E-7, -8.56872026469545474066E-7,
    3.47025130813767847674E-6, -1.32731636560394358279E-5, 4.78156510755005422638E-5, -1.61760815825896745588E-4,
    5.12285956168575772895E-4, -1.51357245063125314899E-3, 4.15642294431288815669E-3, -1.05640848946261981558E-2,
    2.47264490306265168283E-2, -5.29459812080949914269E-2, 1.02643658689847095384E-1, -1.76416518357834055153E-1,
    2.52587186443633654823E-1,
};
inline constexpr double kI1B[] = {
    7.51729631084210481353E-18, 4.41434832307170791151E-18, -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16, 3.30820231092092828324E-16, -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14, 4.27244001671195135429E-14, -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12, 1.41258074366137813316E-11, 3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10, -3.83538038596423702205E-9, -2.63146884688951950684E-8,
    -2.51223623787020892529E-7, -3.88256480887769039346E-6, -1.10588938762623716291E-4, -9.76109749136146840777E-3,
    7.78576235018280120474E-1,
};

inline double i0e(double x) {
  const double a = std::fabs(x);
  if (a <= 8.0) return chbevl(a / 2.0 - 2.0, kI0A);
  return chbevl(32.0 / a - 2.0, kI0B) / std::sqrt(a);
}
inline double i0(double x) { return std::exp(std::fabs(x)) * i0e(x); }
inline double i1e(double x) {
  const double a = std::fabs(x);
  const double r = a <= 8.0 ? chbevl(a / 2.0 - 2.0, kI1A) * a : chbevl(32.0 / a - 2.0, kI1B) / std::sqrt(a);
  return x < 0.0 ? -r : r;
}
inline double i1(double x) { return std::exp(std::fabs(x)) * i1e(x); }

// erfcx(x) = exp(x^2) erfc(x): below 26 from erfc with x^2 kept exact (hi + lo), above 26 the
// asymptotic series 1 / (x sqrt(pi)) sum_k (-1)^k (2k - 1)!! / (2 x^2)^k, converged at 9 terms there.
inline double erfcx(double x) {
  if (x < 26.0) {
    if (x < -26.7) return kInf;
    const double h = x * x, l = std::fma(x, x, -h);
    return std::exp(h) * (1.0 + l) * std::erfc(x);
  }
  if (x != x || x == kInf) return x == kInf ? 0.0 : x;
  const double u = 1.0 / (2.0 * x * x);
  double term = 1.0, sum = 1.0;
  for (int k = 1; k < 10; ++k) {
    term *= -(2.0 * k - 1.0) * u;
    sum += term;
  }
  return sum / (x * 1.77245385090551602730);
}

// log of the standard normal CDF (SciPy's log_ndtr): through erfcx in the left tail.
inline double log_ndtr(double x) {
  const double t = x * 0.70710678118654752440;
  if (x < -1.0) return std::log(erfcx(-t) / 2.0) - t * t;
  return std::log1p(-std::erfc(t) / 2.0);
}

template <int N>
inline double polevl(double x, const double (&c)[N]) {  // c[0] x^(N-1) + ... + c[N-1]
  double r = c[0];
  for (int i = 1; i < N; ++i) r = r * x + c[i];
  return r;
}

// The inverse of the standard normal CDF (Cephes ndtri).
inline double ndtri(double y0) {
  static constexpr double P0[] = {-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1,
                                  1.39312609387279679503E1, -1.23916583867381258016E0};
  static constexpr double Q0[] = {1.0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
                                  -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1,
                                  1.59056225126211695515E1, -1.18331621121330003142E0};
  static constexpr double P1[] = {4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1,
                                  4.40805073893200834700E1, 1.46849561928858024014E1, 2.18663306850790267539E0,
                                  -1.40256079171354495875E-1, -3.50424626827848203418E-2, -8.57456785154685413611E-4};
  static constexpr double Q1[] = {1.0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
                                  1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1,
                                  -3.80806407691578277194E-2, -9.33259480895457427372E-4};
  static constexpr double P2[] = {3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0,
                                  1.33303460815807542389E0, 2.01485389549179081538E-1, 1.23716634817820021358E-2,
                                  3.01581553508235416007E-4, 2.65806974686737550832E-6, 6.23974539184983293730E-9};
  static constexpr double Q2[] = {1.0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
                                  2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4,
                                  2.89247864745380683936E-6, 6.79019408009981274425E-9};
  constexpr double kExpM2 = 0.13533528323661269189;  // exp(-2)
  if (y0 == 0.0) return -kInf;
  if (y0 == 1.0) return kInf;
  if (!(y0 > 0.0 && y0 < 1.0)) return kNaN;
  bool negate = true;
  double y = y0;
  if (y > 1.0 - kExpM2) {
    y = 1.0 - y;
    negate = false;
  }
  if (y > kExpM2) {
    y -= 0.5;
    const double y2 = y * y;
    return (y + y * (y2 * polevl(y2, P0) / polevl(y2, Q0))) * 2.50662827463100050242;
  }
  const double x = std::sqrt(-2.0 * std::log(y));
  const double x0 = x - std::log(x) / x, z = 1.0 / x;
  const double x1 = x < 8.0 ? z * polevl(z, P1) / polevl(z, Q1) : z * polevl(z, P2) / polevl(z, Q2);
  return negate ? x1 - x0 : x0 - x1;
}

// ---- regularized incomplete gamma functions P(a, x) (igamma) and Q(a, x) (igammac)

// A rational function, coefficients from the highest degree down, evaluated in 1/x above |x| = 1
// (Boost's / SciPy's ratevl).
template <int M, int N>
inline double ratevl(double x, const double (&num)[M], const double (&den)[N]) {
  double p = 0.0, q = 0.0;
  if (std::fabs(x) > 1.0) {
    const double y = 1.0 / x;
    for (int i = M - 1; i >= 0; --i) p = p * y + num[i];
    for (int i = N - 1; i >= 0; --i) q = q * y + den[i];
    return std::pow(x, double(N - M)) * p / q;
  }
  for (int i = 0; i < M; ++i) p = p * x + num[i];
  for (int i = 0; i < N; ++i) q = q * x + den[i];
  return p / q;
}

inline double lanczos_sum_expg_scaled(double x) {
  static constexpr double num[] = {
      0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
      19.51992788247617482847860966235652136208,    449.9445569063168119446858607650988409623,
      6955.999602515376140356310115515198987526,    75999.29304014542649875303443598909137092,
      601859.6171681098786670226533699352302507,    3481712.15498064590882071018964774556468,
      14605578.08768506808414169982791359218571,    43338889.32467613834773723740590533316085,
      86363131.28813859145546927288977868422342,    103794043.1163445451906271053616070238554,
      56906521.91347156388090791033559122686859};
  static constexpr double den[] = {1., 66., 1925., 32670., 357423., 2637558., 13339535., 45995730., 105258076.,
                                   150917976., 120543840., 39916800., 0.};
  return ratevl(x, num, den);
}

// x^a e^-x / Gamma(a), without the cancellation of its logarithm's terms when x is near a.
inline double igam_fac(double a, double x) {
  constexpr double kMaxLog = 7.09782712893383996843E2, kLanczosG = 6.024680040776729583740234375;
  if (std::fabs(a - x) > 0.4 * std::fabs(a)) {
    const double ax = a * std::log(x) - x - std::lgamma(a);
    return ax < -kMaxLog ? 0.0 : std::exp(ax);
  }
  const double fac = a + kLanczosG - 0.5;
  double res = std::sqrt(fac / 2.718281828459045) / lanczos_sum_expg_scaled(a);
  if (a < 200.0 && x < 200.0) return res * std::exp(a - x) * std::pow(x / fac, a);
  const double numfac = (x - a - kLanczosG + 0.5) / fac;
  return res * std::exp(a * (std::log1p(numfac) - numfac) + x * (0.5 - kLanczosG) / fac);
}

constexpr int kIgamMaxIter = 100000;  // ~ 10 sqrt(a) steps where a ~ x is large

inline double igam_series(double a, double x) {  // P(a, x), DLMF 8.11.4
  const double ax = igam_fac(a, x);
  if (ax == 0.0) return 0.0;
  double r = a, c = 1.0, ans = 1.0;
  for (int i = 0; i < kIgamMaxIter; ++i) {
    r += 1.0;
    c *= x / r;
    ans += c;
    if (c <= kMachEp * ans) break;
  }
  return ans * ax / a;
}

inline double igamc_series(double a, double x) {  // Q(a, x) for small x, DLMF 8.7.3
  double fac = 1.0, sum = 0.0;
  for (int n = 1; n < 2000; ++n) {
    fac *= -x / n;
    const double term = fac / (a + n);
    sum += term;
    if (std::fabs(term) <= kMachEp * std::fabs(sum)) break;
  }
  const double logx = std::log(x);
  return -std::expm1(a * logx - std::lgamma(1.0 + a)) - std::exp(a * logx - std::lgamma(a)) * sum;
}

inline double igamc_cf(double a, double x) {  // Q(a, x) for x > a, DLMF 8.9.2
  constexpr double kBig = 4.503599627370496e15, kBigInv = 2.22044604925031308085e-16;
  const double ax = igam_fac(a, x);
  if (ax == 0.0) return 0.0;
  double y = 1.0 - a, z = x + y + 1.0, c = 0.0;
  double pkm2 = 1.0, qkm2 = x, pkm1 = x + 1.0, qkm1 = z * x;
  double ans = pkm1 / qkm1;
  for (int i = 0; i < kIgamMaxIter; ++i) {
    c += 1.0;
    y += 1.0;
    z += 2.0;
    const double yc = y * c;
    const double pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
    double t = 1.0;
    if (qk != 0.0) {
      const double r = pk / qk;
      t = std::fabs((ans - r) / r);
      ans = r;
    }
    pkm2 = pkm1, pkm1 = pk, qkm2 = qkm1, qkm1 = qk;
    if (std::fabs(pk) > kBig) pkm2 *= kBigInv, pkm1 *= kBigInv, qkm2 *= kBigInv, qkm1 *= kBigInv;
    if (t <= kMachEp) break;
  }
  return ans * ax;
}

// Boundary values as SciPy's: NaN for a < 0 or x < 0; P(0, x > 0) = 1; P(a, 0) = 0; P(inf, x) = 0.
inline bool igam_edge(double a, double x, bool upper, double& r) {
  if (a != a || x != x || a < 0.0 || x < 0.0) r = kNaN;
  else if (a == 0.0) r = x > 0.0 ? (upper ? 0.0 : 1.0) : kNaN;
  else if (x == 0.0) r = upper ? 1.0 : 0.0;
  else if (a == kInf) r = x == kInf ? kNaN : (upper ? 1.0 : 0.0);
  else if (x == kInf) r = upper ? 0.0 : 1.0;
  else return false;
  return true;
}

inline double igammac(double a, double x) {
  double r;
  if (igam_edge(a, x, true, r)) return r;
  if (x > 1.1) return x < a ? 1.0 - igam_series(a, x) : igamc_cf(a, x);
  if (x <= 0.5) return -0.4 / std::log(x) < a ? 1.0 - igam_series(a, x) : igamc_series(a, x);
  return x * 1.1 < a ? 1.0 - igam_series(a, x) : igamc_series(a, x);
}

inline double igamma(double a, double x) {
  double r;
  if (igam_edge(a, x, false, r)) return r;
  if (x > 1.0 && x > a) return 1.0 - igammac(a, x);
  return igam_series(a, x);
}

// Hurwitz zeta(x, q) (Cephes zeta, as PyTorch's).
inline double zeta(double x, double q) {
  static constexpr double A[] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
                                 7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
                                 -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18};
  if (x == 1.0) return kInf;
  if (x < 1.0) return kNaN;
  if (q <= 0.0) {
    if (q == std::floor(q)) return kInf;
    if (x != std::floor(x)) return kNaN;
  }
  double s = std::pow(q, -x), a = q, b = 0.0;
  int i = 0;
  while (i < 9 || a <= 9.0) {
    i += 1;
    a += 1.0;
    b = std::pow(a, -x);
    s += b;
    if (-kMachEp * s < b && b < kMachEp * s) return s;
  }
  const double w = a;
  s += b * w / (x - 1.0);
  s -= 0.5 * b;
  a = 1.0;
  double k = 0.0;
  for (int j = 0; j < 12; ++j) {
    a *= x + k;
    b /= w;
    double t = a * b / A[j];
    s = s + t;
    t = std::fabs(t / s);
    if (t < kMachEp) return s;
    k += 1.0;
    a *= x + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

}  // namespace lucid::cpu::sm
