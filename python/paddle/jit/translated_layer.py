"""placeholder"""
class TranslatedLayer: pass
